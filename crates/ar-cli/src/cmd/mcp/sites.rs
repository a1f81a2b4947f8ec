//! The sites `ar mcp` has open: each one a whole `ar <url>` session
//! ([`Session`]: proxy, capture task, Chromium), driven through the agent's
//! [`ToolBox`] instead of a REPL.
//!
//! A site's session sits behind a lock that only the few calls that need it
//! take (save, close, explore, the driver's stamp); browser and recon tools go
//! through the tool box, which reaches the store through the capture task like
//! the agent does. The session's events (progress lines, new endpoints) go to
//! the log on stderr; the end of an explorer turn is handed to whoever waits
//! for it.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use ar_agent::agent::{AgentConfig, ToolBox, ToolError};
use ar_store::Client;
use rmcp::RoleServer;
use rmcp::service::Peer;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot, watch};
use tokio_util::sync::CancellationToken;

use super::human;
use ar_session::pipeline::Documents;
use ar_session::pipeline::enrich::Runner;
use ar_session::session::{Counters, Event, Explorer, Session, Style, TurnOutcome};

use crate::cmd::session::SessionArgs;

/// What every site opened by this server shares (the server's own flags).
#[derive(Debug, Clone, Default)]
pub(crate) struct Defaults {
    /// Where ar's CA lives; `None` = the user's data dir.
    pub(crate) ca_dir: Option<PathBuf>,
    /// An external WebDriver server instead of chromedriver.
    pub(crate) webdriver: Option<String>,
}

/// `site_open`'s arguments: the flags of `ar <url>` that make sense for a
/// client to choose, by the same names.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct OpenArgs {
    url: Option<String>,
    #[serde(default)]
    headless: bool,
    out: Option<PathBuf>,
    resume: Option<PathBuf>,
    profile: Option<PathBuf>,
    #[serde(default)]
    scope: Vec<String>,
    #[serde(default)]
    resolve: Vec<String>,
    #[serde(default)]
    template: Vec<String>,
    #[serde(default)]
    offline: bool,
    upstream_ca: Option<PathBuf>,
    #[serde(default)]
    explore_unsafe: bool,
}

/// The JSON Schema of [`OpenArgs`] (a test deserializes every property).
pub(crate) fn open_schema() -> Value {
    let strings = |description: &str| json!({"type": "array", "items": {"type": "string"}, "description": description});
    let path = |description: &str| json!({"type": "string", "description": description});
    json!({
        "type": "object",
        "properties": {
            "url": {"type": "string", "description": "the site, e.g. https://shop.example (a bare host gets https://); optional with resume"},
            "headless": {"type": "boolean", "default": false, "description": "no window; headed (the default) lets the user watch and take over for ask_human"},
            "out": path("output directory [default: ./ar-out/<host>-<timestamp>/ under ar's working directory]"),
            "resume": path("carry on a previous session's output directory"),
            "profile": path("a persistent Chromium profile directory (logins survive across runs)"),
            "scope": strings("more hosts whose traffic belongs in the spec"),
            "resolve": strings("HOST:PORT:ADDR entries: send connections for HOST:PORT to ADDR"),
            "template": strings("path templates that beat the learnt ones, e.g. /api/files/{path*}"),
            "offline": {"type": "boolean", "default": false, "description": "dial only resolve'd hosts and loopback"},
            "upstream_ca": path("a PEM file of extra CA certificates to trust upstream (test sites)"),
            "explore_unsafe": {"type": "boolean", "default": false, "description": "let the explorer do destructive things"}
        },
        "additionalProperties": false
    })
}

impl OpenArgs {
    fn session_args(self, defaults: &Defaults) -> SessionArgs {
        SessionArgs {
            url: self.url,
            out: self.out,
            headless: self.headless,
            profile: self.profile,
            scope: self.scope,
            templates: crate::args::TemplateArgs {
                template: self.template,
                templates: Vec::new(),
            },
            resume: self.resume,
            resolve: self.resolve,
            offline: self.offline,
            upstream_ca: self.upstream_ca,
            explore_unsafe: self.explore_unsafe,
            ca_dir: defaults.ca_dir.clone(),
            webdriver: defaults.webdriver.clone(),
            batch: true,
            ..SessionArgs::default()
        }
    }
}

/// One open site.
pub(crate) struct Site {
    /// Its id in tool arguments and resource URIs (`shop.test`, `shop.test-2`).
    pub(crate) id: String,
    /// The page it opened first.
    pub(crate) target: String,
    /// Where its files go.
    pub(crate) out_dir: PathBuf,
    /// The registry's tools bound to this site's browser and capture.
    pub(crate) tools: ToolBox,
    /// Bumped each time the documents are rewritten.
    pub(crate) written: watch::Receiver<u64>,
    session: Arc<tokio::sync::Mutex<Option<Session>>>,
    runner: Runner,
    counters: watch::Receiver<Counters>,
    turn_done: Arc<Mutex<Option<oneshot::Sender<TurnOutcome>>>>,
    /// Counters when the browser was handed to the user without a way to
    /// wait for them (no elicitation): `human_done` ends it.
    handoff: Arc<Mutex<Option<Counters>>>,
}

impl Site {
    /// Why the browser tools cannot run now, if so: the explorer drives, or
    /// the user has the browser.
    pub(crate) async fn busy(&self) -> Option<ToolError> {
        if lock(&self.handoff).is_some() {
            return Some(tool_error(
                "human_has_browser",
                format!(
                    "the user has the browser (ask_human): call human_done with site {:?} once they say they are done",
                    self.id
                ),
            ));
        }
        let guard = self.session.lock().await;
        match guard.as_ref() {
            None => Some(closed()),
            Some(session) if session.turn_running() => Some(tool_error(
                "busy",
                "the explorer is driving this site's browser: wait for explore to return",
            )),
            Some(_) => None,
        }
    }

    /// The documents as they would be written now (fresher than the files,
    /// which are rewritten at most once a second).
    pub(crate) async fn documents(&self) -> Result<Documents, ToolError> {
        let (tx, rx) = oneshot::channel();
        let sent = (self.runner)(Box::new(move |pipeline| {
            let _ = tx.send(pipeline.documents().map_err(|e| format!("{e:#}")));
            false
        }));
        let gone = || tool_error("site_closed", "the site's capture has stopped");
        if !sent {
            return Err(gone());
        }
        rx.await
            .map_err(|_| gone())?
            .map_err(|reason| tool_error("failed", format!("cannot build the documents: {reason}")))
    }

    /// Runs `f` on the site's endpoint store (in its capture task); false
    /// when the capture has stopped.
    pub(crate) fn run_on_store(
        &self,
        f: impl FnOnce(&ar_store::store::EndpointStore) + Send + 'static,
    ) -> bool {
        (self.runner)(Box::new(move |pipeline| {
            f(pipeline.store());
            false
        }))
    }

    /// What was captured and documented so far.
    pub(crate) fn counters(&self) -> Counters {
        *self.counters.borrow()
    }

    /// `site_save`: the documents, `capture.har` and `session.json` now.
    pub(crate) async fn save(&self) -> Result<String, ToolError> {
        let mut guard = self.session.lock().await;
        let session = guard.as_mut().ok_or_else(closed)?;
        let mut out = Vec::new();
        session.save(&mut out).await.map_err(failed)?;
        Ok(String::from_utf8_lossy(&out).into_owned())
    }

    /// `explore`: the built-in explorer for up to `pages` pages (and `time`),
    /// then its report; `cancel` stops it early (the client cancelled).
    pub(crate) async fn explore(
        &self,
        pages: usize,
        time: Option<Duration>,
        cancel: CancellationToken,
    ) -> Result<String, ToolError> {
        if let Some(busy) = self.busy().await {
            return Err(busy);
        }
        let (tx, rx) = oneshot::channel();
        {
            let mut guard = self.session.lock().await;
            let session = guard.as_mut().ok_or_else(closed)?;
            *lock(&self.turn_done) = Some(tx);
            let explorer = Explorer::for_session(session.config()).with_budget(pages, time);
            let mut out = Vec::new();
            if !session
                .start_turn(Box::new(explorer), &mut out)
                .map_err(failed)?
            {
                return Err(tool_error("busy", String::from_utf8_lossy(&out).trim()));
            }
        }
        let mut rx = rx;
        let ended = tokio::select! {
            ended = &mut rx => ended,
            () = cancel.cancelled() => {
                if let Some(session) = self.session.lock().await.as_mut() {
                    session.stop_turn();
                }
                (&mut rx).await
            }
        };
        let outcome =
            ended.map_err(|_| tool_error("site_closed", "the site closed while exploring"))?;
        Ok(crate::cmd::session::report(Style::detect(false), &outcome))
    }

    /// Stamps the site's flows with `client` from now on (the proxy's lock on
    /// destructive requests follows, as in a session).
    pub(crate) async fn drive_as(&self, client: Client) {
        if let Some(session) = self.session.lock().await.as_ref() {
            session.drive_as(client);
        }
    }

    /// The pending hand-off without elicitation, taken (`human_done`).
    pub(crate) fn take_handoff(&self) -> Option<Counters> {
        lock(&self.handoff).take()
    }

    async fn shutdown(&self) -> String {
        let Some(session) = self.session.lock().await.take() else {
            return "already closed".to_owned();
        };
        let mut out = Vec::new();
        if let Err(error) = session.shutdown(&mut out).await {
            out.extend_from_slice(format!("error: {error:#}\n").as_bytes());
        }
        String::from_utf8_lossy(&out).into_owned()
    }
}

/// The open sites, by id.
pub(crate) struct Sites {
    defaults: Defaults,
    open: Mutex<BTreeMap<String, Arc<Site>>>,
}

impl Sites {
    /// No sites yet; each one opened gets `defaults`.
    pub(crate) fn new(defaults: Defaults) -> Self {
        Self {
            defaults,
            open: Mutex::new(BTreeMap::new()),
        }
    }

    /// `site_open`: starts a session (proxy, capture, Chromium on the target)
    /// and returns the site with the session's start-up lines. `peer` is the
    /// client that asks the user when the site's `ask_human` runs.
    pub(crate) async fn open(
        &self,
        args: Value,
        peer: Peer<RoleServer>,
    ) -> Result<(Arc<Site>, String), ToolError> {
        let args: OpenArgs = serde_json::from_value(args).map_err(|e| {
            tool_error(
                "invalid_arguments",
                format!("{e}: site_open takes the properties of its schema"),
            )
        })?;
        let headless = args.headless;
        let config = (args.session_args(&self.defaults))
            .config(time::OffsetDateTime::now_utc())
            .map_err(|e| tool_error("invalid_arguments", format!("{e:#}")))?;
        let host = config.target.host_str().unwrap_or("site").to_owned();
        let target = config.target.to_string();
        let out_dir = config.out_dir.clone();
        let mut out = Vec::new();
        let (session, events) = Session::start(config, Style::detect(false), &mut out)
            .await
            .map_err(|e| tool_error("open_failed", format!("{e:#}")))?;
        // Flows this server's client causes are the agent's, as in `ar <url> --intent`.
        session.drive_as(Client::Agent);
        let Some(browser) = session.browser() else {
            let _ = session.shutdown(&mut std::io::sink()).await;
            return Err(tool_error("open_failed", "the browser did not start"));
        };
        let id = self.fresh_id(&host);
        let shared = Arc::new(tokio::sync::Mutex::new(None));
        let handoff = Arc::new(Mutex::new(None));
        let ask = human::asker(human::Desk {
            peer,
            site: id.clone(),
            headless,
            session: Arc::clone(&shared),
            counters: session.counters_watch(),
            handoff: Arc::clone(&handoff),
        });
        let workspace = session.agent_slot().workspace(session.handles(), Some(ask));
        let site = Arc::new(Site {
            id: id.clone(),
            target,
            out_dir,
            tools: ToolBox::new(browser, workspace, AgentConfig::default().settle),
            written: session.written_watch(),
            runner: session.runner(),
            counters: session.counters_watch(),
            session: Arc::clone(&shared),
            turn_done: Arc::new(Mutex::new(None)),
            handoff,
        });
        *shared.lock().await = Some(session);
        tokio::spawn(drain(
            id.clone(),
            events,
            shared,
            Arc::clone(&site.turn_done),
        ));
        lock(&self.open).insert(id, Arc::clone(&site));
        Ok((site, String::from_utf8_lossy(&out).into_owned()))
    }

    /// The site `id`, or the only one when `id` is not given.
    pub(crate) fn get(&self, id: Option<&str>) -> Result<Arc<Site>, ToolError> {
        let open = lock(&self.open);
        match id {
            Some(id) => open.get(id).cloned().ok_or_else(|| {
                tool_error(
                    "unknown_site",
                    format!("no site {id:?} is open; open ones: {}", names(&open)),
                )
            }),
            None if open.len() == 1 => Ok(open.values().next().cloned().expect("one site")),
            None if open.is_empty() => Err(tool_error(
                "no_site",
                "no site is open: call site_open with the site's url first",
            )),
            None => Err(tool_error(
                "site_required",
                format!(
                    "several sites are open: say which with \"site\" ({})",
                    names(&open)
                ),
            )),
        }
    }

    /// The open sites, by id.
    pub(crate) fn list(&self) -> Vec<Arc<Site>> {
        lock(&self.open).values().cloned().collect()
    }

    /// `site_close`: stops the site's browser and proxy and writes everything.
    pub(crate) async fn close(&self, id: Option<&str>) -> Result<String, ToolError> {
        let site = self.get(id)?;
        lock(&self.open).remove(&site.id);
        Ok(site.shutdown().await)
    }

    /// Closes every site (the server is ending), saying what each wrote on stderr.
    pub(crate) async fn close_all(&self) {
        let sites: Vec<Arc<Site>> = std::mem::take(&mut *lock(&self.open))
            .into_values()
            .collect();
        for site in sites {
            let said = site.shutdown().await;
            tracing::info!(site = %site.id, "closed: {}", said.trim());
        }
    }

    fn fresh_id(&self, host: &str) -> String {
        let open = lock(&self.open);
        std::iter::once(host.to_owned())
            .chain((2..).map(|n| format!("{host}-{n}")))
            .find(|id| !open.contains_key(id))
            .expect("an unused id")
    }
}

/// The session's events: lines to the log, the end of a turn to its waiter.
async fn drain(
    site: String,
    mut events: mpsc::UnboundedReceiver<Event>,
    session: Arc<tokio::sync::Mutex<Option<Session>>>,
    turn_done: Arc<Mutex<Option<oneshot::Sender<TurnOutcome>>>>,
) {
    while let Some(event) = events.recv().await {
        match event {
            Event::Message(line) => tracing::info!(site = %site, "{line}"),
            Event::TurnEnded(result) => {
                let mut guard = session.lock().await;
                let Some(session) = guard.as_mut() else {
                    continue;
                };
                let outcome = session.end_turn(result);
                session.drive_as(Client::Agent);
                match lock(&turn_done).take() {
                    Some(waiter) => {
                        let _ = waiter.send(outcome);
                    }
                    None => tracing::info!(site = %site, "{} ended", outcome.name),
                }
            }
        }
    }
}

fn names(open: &BTreeMap<String, Arc<Site>>) -> String {
    if open.is_empty() {
        "none".to_owned()
    } else {
        open.keys().cloned().collect::<Vec<_>>().join(", ")
    }
}

pub(crate) fn tool_error(code: &str, message: impl Into<String>) -> ToolError {
    ToolError {
        code: code.to_owned(),
        message: message.into(),
    }
}

fn closed() -> ToolError {
    tool_error("site_closed", "this site was closed: open it again")
}

fn failed(error: anyhow::Error) -> ToolError {
    tool_error("failed", format!("{error:#}"))
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_property_of_the_open_schema_is_an_open_argument() {
        let schema = open_schema();
        let mut args = serde_json::Map::new();
        for (name, property) in schema["properties"].as_object().unwrap() {
            let value = match property["type"].as_str().unwrap() {
                "boolean" => json!(true),
                "array" => json!(["x"]),
                _ => json!("x"),
            };
            args.insert(name.clone(), value);
        }
        let parsed: OpenArgs = serde_json::from_value(Value::Object(args)).unwrap();
        assert!(parsed.headless && parsed.offline && parsed.explore_unsafe);
        assert_eq!(parsed.resolve, ["x"]);
        let error = serde_json::from_value::<OpenArgs>(json!({"url": "x", "nope": 1})).unwrap_err();
        assert!(error.to_string().contains("nope"), "{error}");
    }
}
