//! Running one tool call: argument parsing, the browser and workspace call,
//! and the text the caller gets back (a snapshot diff after actions, the new
//! endpoints the action made fire). Failures become [`ToolError`]s with a
//! stable code and a message that says what to do next.
//!
//! The functions here are the registry's handlers (`registry.rs` names them);
//! [`ToolBox`] runs them for one browser and one workspace.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use ar_openapi::{Annotation, Redactor};
use serde_json::Value;

use super::flows;
use super::registry::find;
use super::workspace::{Workspace, WorkspaceError, query};
use crate::browser::{Browser, BrowserError, Ref, Scroll, Snapshot, Wait, diff};
use crate::llm::BoxFuture;

/// Default byte budget of a `flows_get` answer.
const FLOWS_GET_BUDGET: usize = 6_000;

/// A failed tool call, sent back to the model as an error result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolError {
    /// Stable machine name: `stale_ref`, `not_found`, `key_not_found`, `invalid_arguments`, ...
    pub code: String,
    /// What happened and what to do next.
    pub message: String,
}

impl ToolError {
    pub(crate) fn new(code: &str, message: impl Into<String>) -> Self {
        Self {
            code: code.to_owned(),
            message: message.into(),
        }
    }

    /// The JSON text the model receives.
    #[must_use]
    pub fn to_json(&self) -> String {
        serde_json::json!({"error": self.code, "message": self.message}).to_string()
    }
}

impl From<BrowserError> for ToolError {
    fn from(error: BrowserError) -> Self {
        Self::new(error.code(), error.to_string())
    }
}

impl From<WorkspaceError> for ToolError {
    fn from(error: WorkspaceError) -> Self {
        let code = match error {
            WorkspaceError::Gone(_) => "workspace_gone",
            WorkspaceError::Failed { .. } => "failed",
            WorkspaceError::Unsupported { .. } => "unsupported",
        };
        Self::new(code, error.to_string())
    }
}

/// What the tools remember between calls within a conversation.
#[derive(Debug, Default)]
pub(crate) struct ToolState {
    /// The last snapshot the model saw (diffs are taken against it).
    pub(crate) last_snapshot: Option<Snapshot>,
    /// Endpoint keys as of the last `doc_status`.
    pub(crate) seen_keys: BTreeSet<String>,
    /// Keys the model annotated.
    pub(crate) annotated: BTreeSet<String>,
}

/// Everything a tool call may touch.
pub(crate) struct ToolContext {
    pub(crate) browser: Arc<dyn Browser>,
    pub(crate) workspace: Arc<dyn Workspace>,
    pub(crate) redactor: Redactor,
    pub(crate) settle: Wait,
}

/// How the registry runs a tool: one function per entry.
pub(crate) type Handler = for<'a> fn(
    &'a ToolContext,
    &'a mut ToolState,
    &'a Value,
) -> BoxFuture<'a, Result<String, ToolError>>;

/// The registry's tools bound to one browser and one workspace: what the
/// agent loop calls, and what `ar mcp` calls for each site it has open.
///
/// Calls run one at a time (a diff is taken against the snapshot the caller
/// saw last). Every answer, error or not, has passed through the
/// [`Redactor`]: headers, cookies, URL tokens and JWTs never leave.
pub struct ToolBox {
    ctx: ToolContext,
    state: tokio::sync::Mutex<ToolState>,
}

impl std::fmt::Debug for ToolBox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolBox").finish_non_exhaustive()
    }
}

impl ToolBox {
    /// The tools for `browser` and `workspace`; after an action the page is
    /// let settle by `settle` before it is shown.
    #[must_use]
    pub fn new(browser: Arc<dyn Browser>, workspace: Arc<dyn Workspace>, settle: Wait) -> Self {
        Self {
            ctx: ToolContext {
                browser,
                workspace,
                redactor: Redactor::new(),
                settle,
            },
            state: tokio::sync::Mutex::new(ToolState::default()),
        }
    }

    /// Runs the registry's tool `name` with `args`; the text is redacted.
    ///
    /// # Errors
    /// A [`ToolError`] (redacted) with a stable code: `unknown_tool`,
    /// `invalid_arguments`, a browser error's code (`stale_ref`,
    /// `dialog_open`, `timeout`, ...), `key_not_found`, `workspace_gone`.
    pub async fn call(&self, name: &str, args: &Value) -> Result<String, ToolError> {
        let Some(spec) = find(name) else {
            return Err(ToolError::new(
                "unknown_tool",
                format!("there is no tool {name:?}; use one of the tools listed"),
            ));
        };
        let mut state = self.state.lock().await;
        let redactor = &self.ctx.redactor;
        match (spec.run)(&self.ctx, &mut state, args).await {
            Ok(text) => Ok(redactor.text(&text).into_owned()),
            Err(error) => Err(ToolError {
                code: error.code,
                message: redactor.text(&error.message).into_owned(),
            }),
        }
    }

    /// The redactor every answer goes through (for text the caller adds).
    #[must_use]
    pub fn redactor(&self) -> &Redactor {
        &self.ctx.redactor
    }
}

pub(crate) async fn snapshot(
    ctx: &ToolContext,
    state: &mut ToolState,
    _args: &Value,
) -> Result<String, ToolError> {
    let snapshot = ctx.browser.snapshot().await?;
    let text = snapshot.to_string();
    state.last_snapshot = Some(snapshot);
    Ok(text)
}

pub(crate) async fn navigate(
    ctx: &ToolContext,
    state: &mut ToolState,
    args: &Value,
) -> Result<String, ToolError> {
    let url = string(args, "url")?;
    let url = match &state.last_snapshot {
        Some(s) => url::Url::parse(&s.url)
            .and_then(|base| base.join(&url))
            .map_or(url, |u| u.to_string()),
        None => url,
    };
    let before = known(ctx).await?;
    ctx.browser.navigate(&url).await?;
    after_action(ctx, state, before, true).await
}

pub(crate) async fn back(
    ctx: &ToolContext,
    state: &mut ToolState,
    _args: &Value,
) -> Result<String, ToolError> {
    let before = known(ctx).await?;
    ctx.browser.back().await?;
    after_action(ctx, state, before, true).await
}

pub(crate) async fn click(
    ctx: &ToolContext,
    state: &mut ToolState,
    args: &Value,
) -> Result<String, ToolError> {
    let target = reference(args)?;
    let before = known(ctx).await?;
    ctx.browser.click(target).await?;
    after_action(ctx, state, before, false).await
}

pub(crate) async fn type_text(
    ctx: &ToolContext,
    state: &mut ToolState,
    args: &Value,
) -> Result<String, ToolError> {
    let submit = args.get("submit").and_then(Value::as_bool).unwrap_or(false);
    let (target, text) = (reference(args)?, string(args, "text")?);
    let before = known(ctx).await?;
    ctx.browser.type_text(target, &text, submit).await?;
    after_action(ctx, state, before, false).await
}

pub(crate) async fn select(
    ctx: &ToolContext,
    state: &mut ToolState,
    args: &Value,
) -> Result<String, ToolError> {
    let (target, option) = (reference(args)?, string(args, "option")?);
    let before = known(ctx).await?;
    let chosen = ctx.browser.select(target, &option).await?;
    let rest = after_action(ctx, state, before, false).await?;
    Ok(format!("selected {chosen:?}\n{rest}"))
}

pub(crate) async fn press(
    ctx: &ToolContext,
    state: &mut ToolState,
    args: &Value,
) -> Result<String, ToolError> {
    let key = string(args, "key")?;
    let before = known(ctx).await?;
    ctx.browser.press(&key).await?;
    after_action(ctx, state, before, false).await
}

pub(crate) async fn scroll(
    ctx: &ToolContext,
    state: &mut ToolState,
    args: &Value,
) -> Result<String, ToolError> {
    let scroll = match (
        args.get("ref"),
        args.get("direction").and_then(Value::as_str),
    ) {
        (Some(_), _) => Scroll::IntoView(reference(args)?),
        (None, Some("up")) => Scroll::Up,
        (None, Some("top")) => Scroll::Top,
        (None, Some("bottom")) => Scroll::Bottom,
        (None, Some("down") | None) => Scroll::Down,
        (None, Some(other)) => {
            return Err(ToolError::new(
                "invalid_arguments",
                format!("direction {other:?}: use down, up, top or bottom, or give a ref"),
            ));
        }
    };
    let before = known(ctx).await?;
    ctx.browser.scroll(scroll).await?;
    after_action(ctx, state, before, false).await
}

pub(crate) async fn wait(
    ctx: &ToolContext,
    state: &mut ToolState,
    args: &Value,
) -> Result<String, ToolError> {
    let wait = match args.get("ms").and_then(Value::as_u64) {
        Some(ms) => Wait::Time(Duration::from_millis(ms.min(30_000))),
        None => Wait::network_idle(),
    };
    let before = known(ctx).await?;
    ctx.browser.wait(wait).await?;
    after_action(ctx, state, before, false).await
}

pub(crate) async fn flows_search(
    ctx: &ToolContext,
    _state: &mut ToolState,
    args: &Value,
) -> Result<String, ToolError> {
    let text = args
        .get("query")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .filter(|q| !q.trim().is_empty());
    Ok(query(&*ctx.workspace, move |s| flows::search(s, text.as_deref())).await?)
}

pub(crate) async fn flows_get(
    ctx: &ToolContext,
    _state: &mut ToolState,
    args: &Value,
) -> Result<String, ToolError> {
    let key = string(args, "key")?;
    let budget = args
        .get("max_bytes")
        .and_then(Value::as_u64)
        .map_or(FLOWS_GET_BUDGET, |b| b.clamp(500, 20_000) as usize);
    let redactor = ctx.redactor.clone();
    let answer = query(&*ctx.workspace, move |s| {
        flows::get(s, &key, budget, &redactor)
    })
    .await?;
    answer.map_err(|missing| {
        ToolError::new(
            "key_not_found",
            format!(
                "no endpoint has the key {:?}; available keys: {}",
                missing.key,
                if missing.available.is_empty() {
                    "none yet".to_owned()
                } else {
                    missing.available.join(", ")
                }
            ),
        )
    })
}

pub(crate) async fn flows_stats(
    ctx: &ToolContext,
    _state: &mut ToolState,
    _args: &Value,
) -> Result<String, ToolError> {
    Ok(query(&*ctx.workspace, flows::stats).await?)
}

pub(crate) async fn doc_status(
    ctx: &ToolContext,
    state: &mut ToolState,
    _args: &Value,
) -> Result<String, ToolError> {
    let seen = state.seen_keys.clone();
    let annotated = state.annotated.clone();
    let (text, keys) = query(&*ctx.workspace, move |s| {
        flows::doc_status(s, &seen, &annotated)
    })
    .await?;
    state.seen_keys = keys;
    Ok(text)
}

pub(crate) async fn scope(
    ctx: &ToolContext,
    _state: &mut ToolState,
    args: &Value,
    add: bool,
) -> Result<String, ToolError> {
    let host = string(args, "host")?;
    Ok(ctx.workspace.change_scope(host, add).await?)
}

pub(crate) async fn ask_human(
    ctx: &ToolContext,
    state: &mut ToolState,
    args: &Value,
) -> Result<String, ToolError> {
    let reason = string(args, "reason")?;
    let summary = ctx.workspace.ask_human(reason).await?;
    // The human moved around: the old snapshot says nothing now.
    state.last_snapshot = None;
    Ok(summary)
}

pub(crate) async fn annotate(
    ctx: &ToolContext,
    state: &mut ToolState,
    args: &Value,
) -> Result<String, ToolError> {
    let key = string(args, "key")?;
    let lookup = key.clone();
    let resolved = query(&*ctx.workspace, move |s| {
        s.resolve_key(&lookup).map(|e| e.key().to_string())
    })
    .await?;
    let Some(resolved) = resolved else {
        return Err(ToolError::new(
            "key_not_found",
            format!("no endpoint has the key {key:?}: copy a key from flows_search"),
        ));
    };
    let field = |name: &str| {
        args.get(name)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
    };
    let annotation = Annotation {
        operation_id: field("operation_id"),
        summary: field("summary"),
        description: field("description"),
        tag: field("tag"),
    };
    ctx.workspace.annotate(resolved.clone(), annotation).await?;
    state.annotated.insert(resolved.clone());
    Ok(format!("annotated {resolved}"))
}

/// After an action: let the page settle, then show what changed and which
/// endpoints appeared. A new page (navigation) is shown whole; otherwise a
/// diff against the last snapshot.
async fn after_action(
    ctx: &ToolContext,
    state: &mut ToolState,
    before: BTreeSet<String>,
    new_page: bool,
) -> Result<String, ToolError> {
    // A page that never goes quiet (polling) is not an error for the model.
    let settle = ctx.browser.wait(ctx.settle).await;
    let snapshot = ctx.browser.snapshot().await?;
    let mut out = match (&state.last_snapshot, new_page) {
        (Some(old), false) if old.url == snapshot.url => {
            let d = diff(old, &snapshot);
            if d.is_empty() {
                "the page did not change\n".to_owned()
            } else {
                format!("page changes:\n{d}")
            }
        }
        _ => snapshot.to_string(),
    };
    if let Err(BrowserError::Timeout { what, .. }) = settle {
        out.push_str(&format!("note: the network did not go quiet ({what})\n"));
    }
    state.last_snapshot = Some(snapshot);
    let after = known(ctx).await?;
    let new: Vec<&String> = after.difference(&before).collect();
    if new.is_empty() {
        out.push_str("no new API endpoints from this action\n");
    } else {
        out.push_str("new API endpoints:\n");
        for key in new {
            out.push_str(&format!("  + {key}\n"));
        }
    }
    Ok(out)
}

/// The endpoint keys known now.
async fn known(ctx: &ToolContext) -> Result<BTreeSet<String>, ToolError> {
    Ok(query(&*ctx.workspace, keys).await?)
}

fn keys(store: &ar_store::store::EndpointStore) -> BTreeSet<String> {
    store
        .endpoints()
        .iter()
        .map(|e| e.key().to_string())
        .collect()
}

pub(crate) fn string(args: &Value, name: &str) -> Result<String, ToolError> {
    args.get(name)
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| {
            ToolError::new(
                "invalid_arguments",
                format!("missing string argument {name:?}"),
            )
        })
}

fn reference(args: &Value) -> Result<Ref, ToolError> {
    let text = string(args, "ref")?;
    Ok(text.parse::<Ref>()?)
}
