//! `ask_human` over MCP: the registry's tool, answered by asking the person
//! at the client rather than at ar's REPL.
//!
//! When the client can show a form (elicitation, declared at `initialize`),
//! the tool waits inside the call, as it does in the REPL: the client shows
//! the reason, the user acts in the headed browser window and confirms, and
//! the call returns what their browsing added. Clients that cannot (MCP
//! elicitation is optional, and several agents' clients do not offer it)
//! get the reason back at once with the instruction to call `human_done` when
//! the user says they are done; the browser tools refuse until then, so the
//! calling agent cannot drive over the user's hands.
//!
//! Either way the user's flows are stamped as theirs (`Client::Human`) for
//! the length of the hand-off, as after `/take`.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use ar_agent::agent::WorkspaceError;
use ar_store::Client;
use rmcp::RoleServer;
use rmcp::model::{ElicitRequestParams, ElicitationAction, ElicitationSchema};
use rmcp::service::{ElicitationMode, Peer};
use tokio::sync::watch;

use ar_session::session::{AskHuman, Counters, Session, summary_for_agent};

/// How long a form may stay open before the hand-off gives up: a login or a
/// captcha takes minutes, a person who walked away should not hold the
/// agent's call for ever.
const FORM_LIMIT: Duration = Duration::from_secs(30 * 60);

/// What a site's `ask_human` needs.
pub(crate) struct Desk {
    /// The client that asks the user.
    pub(crate) peer: Peer<RoleServer>,
    /// The site's id, for the instruction to call `human_done`.
    pub(crate) site: String,
    /// Whether the site's browser has no window (the user cannot see it).
    pub(crate) headless: bool,
    /// The site's session, to stamp who drives.
    pub(crate) session: Arc<tokio::sync::Mutex<Option<Session>>>,
    /// The site's counters, to say what the user's browsing added.
    pub(crate) counters: watch::Receiver<Counters>,
    /// Set while a hand-off without a form waits for `human_done`.
    pub(crate) handoff: Arc<Mutex<Option<Counters>>>,
}

/// The site's `ask_human`.
pub(crate) fn asker(desk: Desk) -> AskHuman {
    let desk = Arc::new(desk);
    Arc::new(move |reason| {
        let desk = Arc::clone(&desk);
        Box::pin(async move { desk.ask(reason).await })
    })
}

impl Desk {
    async fn ask(&self, reason: String) -> Result<String, WorkspaceError> {
        let before = *self.counters.borrow();
        self.drive_as(Client::Human).await;
        let window = if self.headless {
            " (this site was opened headless, so there is no window to use: open it again with headless false)"
        } else {
            ""
        };
        if !self
            .peer
            .supported_elicitation_modes()
            .contains(&ElicitationMode::Form)
        {
            *self.handoff.lock().unwrap_or_else(PoisonError::into_inner) = Some(before);
            return Ok(format!(
                "Your client cannot show the user a form, so tell them yourself: {reason}. They use the ar browser window{window}. When they say they are done, call human_done with site {:?}: it reports what their browsing added. The browser tools refuse until then.",
                self.site
            ));
        }
        let schema = ElicitationSchema::builder()
            .required_bool_property("done", |b| {
                b.title("Done")
                    .description("I did it in the browser window")
                    .with_default(true)
            })
            .build()
            .map_err(|reason| WorkspaceError::Failed {
                what: "asking the user".into(),
                reason: reason.into(),
            })?;
        let answer = self
            .peer
            .create_elicitation_with_timeout(
                ElicitRequestParams::FormElicitationParams {
                    meta: None,
                    message: format!(
                        "ar needs you in its browser window{window}: {reason}\nConfirm here when you are done."
                    ),
                    requested_schema: schema,
                },
                Some(FORM_LIMIT),
            )
            .await;
        self.drive_as(Client::Agent).await;
        let added = self.counters.borrow().since(before);
        match answer {
            Ok(result) if result.action == ElicitationAction::Accept => {
                Ok(summary_for_agent(added))
            }
            Ok(_) => Err(WorkspaceError::Failed {
                what: format!("asking the user ({reason})"),
                reason: "they declined: carry on without it, or report what blocks you".into(),
            }),
            Err(error) => Err(WorkspaceError::Failed {
                what: format!("asking the user ({reason})"),
                reason: error.to_string(),
            }),
        }
    }

    async fn drive_as(&self, client: Client) {
        if let Some(session) = self.session.lock().await.as_ref() {
            session.drive_as(client);
        }
    }
}
