//! Running one tool call: argument parsing, the browser and workspace call,
//! and the text the model gets back (a snapshot diff after actions, the new
//! endpoints the action made fire). Failures become [`ToolError`]s with a
//! stable code and a message that says what to do next.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use ar_openapi::{Annotation, Redactor};
use serde_json::Value;

use super::flows;
use super::workspace::{Workspace, WorkspaceError, query};
use crate::browser::{Browser, BrowserError, Ref, Scroll, Snapshot, Wait, diff};

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
    fn new(code: &str, message: impl Into<String>) -> Self {
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
pub(crate) struct ToolContext<'a> {
    pub(crate) browser: &'a Arc<dyn Browser>,
    pub(crate) workspace: &'a Arc<dyn Workspace>,
    pub(crate) redactor: &'a Redactor,
    pub(crate) settle: Wait,
}

/// Runs the tool `name` with `args`.
pub(crate) async fn run(
    ctx: &ToolContext<'_>,
    state: &mut ToolState,
    name: &str,
    args: &Value,
) -> Result<String, ToolError> {
    match name {
        "browser_snapshot" => {
            let snapshot = ctx.browser.snapshot().await?;
            let text = snapshot.to_string();
            state.last_snapshot = Some(snapshot);
            Ok(text)
        }
        "browser_navigate" => {
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
        "browser_back" => {
            let before = known(ctx).await?;
            ctx.browser.back().await?;
            after_action(ctx, state, before, true).await
        }
        "browser_click" => {
            let before = known(ctx).await?;
            ctx.browser.click(reference(args)?).await?;
            after_action(ctx, state, before, false).await
        }
        "browser_type" => {
            let submit = args.get("submit").and_then(Value::as_bool).unwrap_or(false);
            let before = known(ctx).await?;
            ctx.browser
                .type_text(reference(args)?, &string(args, "text")?, submit)
                .await?;
            after_action(ctx, state, before, false).await
        }
        "browser_select" => {
            let before = known(ctx).await?;
            let chosen = ctx
                .browser
                .select(reference(args)?, &string(args, "option")?)
                .await?;
            let rest = after_action(ctx, state, before, false).await?;
            Ok(format!("selected {chosen:?}\n{rest}"))
        }
        "browser_press" => {
            let before = known(ctx).await?;
            ctx.browser.press(&string(args, "key")?).await?;
            after_action(ctx, state, before, false).await
        }
        "browser_scroll" => {
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
        "browser_wait" => {
            let wait = match args.get("ms").and_then(Value::as_u64) {
                Some(ms) => Wait::Time(Duration::from_millis(ms.min(30_000))),
                None => Wait::network_idle(),
            };
            let before = known(ctx).await?;
            ctx.browser.wait(wait).await?;
            after_action(ctx, state, before, false).await
        }
        "flows_search" => {
            let text = args
                .get("query")
                .and_then(Value::as_str)
                .map(str::to_owned)
                .filter(|q| !q.trim().is_empty());
            Ok(query(&**ctx.workspace, move |s| flows::search(s, text.as_deref())).await?)
        }
        "flows_get" => {
            let key = string(args, "key")?;
            let budget = args
                .get("max_bytes")
                .and_then(Value::as_u64)
                .map_or(FLOWS_GET_BUDGET, |b| b.clamp(500, 20_000) as usize);
            let redactor = ctx.redactor.clone();
            let answer = query(&**ctx.workspace, move |s| {
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
        "flows_stats" => Ok(query(&**ctx.workspace, flows::stats).await?),
        "doc_status" => {
            let seen = state.seen_keys.clone();
            let annotated = state.annotated.clone();
            let (text, keys) = query(&**ctx.workspace, move |s| {
                flows::doc_status(s, &seen, &annotated)
            })
            .await?;
            state.seen_keys = keys;
            Ok(text)
        }
        "doc_annotate" => annotate(ctx, state, args).await,
        "scope_add" | "scope_remove" => {
            let host = string(args, "host")?;
            Ok(ctx
                .workspace
                .change_scope(host, name == "scope_add")
                .await?)
        }
        "ask_human" => {
            let reason = string(args, "reason")?;
            let summary = ctx.workspace.ask_human(reason).await?;
            // The human moved around: the old snapshot says nothing now.
            state.last_snapshot = None;
            Ok(format!(
                "{summary}\nthe browser is yours again: take a snapshot first"
            ))
        }
        other => Err(ToolError::new(
            "unknown_tool",
            format!("there is no tool {other:?}; use one of the tools listed"),
        )),
    }
}

async fn annotate(
    ctx: &ToolContext<'_>,
    state: &mut ToolState,
    args: &Value,
) -> Result<String, ToolError> {
    let key = string(args, "key")?;
    let lookup = key.clone();
    let resolved = query(&**ctx.workspace, move |s| {
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
    ctx: &ToolContext<'_>,
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
async fn known(ctx: &ToolContext<'_>) -> Result<BTreeSet<String>, ToolError> {
    Ok(query(&**ctx.workspace, keys).await?)
}

fn keys(store: &ar_store::store::EndpointStore) -> BTreeSet<String> {
    store
        .endpoints()
        .iter()
        .map(|e| e.key().to_string())
        .collect()
}

fn string(args: &Value, name: &str) -> Result<String, ToolError> {
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
