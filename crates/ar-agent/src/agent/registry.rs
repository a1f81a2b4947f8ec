//! The one list of tools: each entry's name, what it is for, the JSON
//! Schema of its arguments, and the function that runs it.
//!
//! Two callers read this list and nothing else: the agent loop, which sends
//! it to the model as its tool list ([`tool_definitions`]), and `ar mcp`,
//! which offers the same tools to other agents. Keeping name, schema and
//! dispatch in one entry means a tool cannot be listed without running, nor
//! run under a schema nobody advertised.
//!
//! The list is stable across turns (it is part of the cached prompt
//! prefix), so it is never built from live state.

use serde_json::{Value, json};

use super::tools::{self, Handler};
use crate::llm::ToolDefinition;

/// What a tool acts on; `ar mcp` groups its tools by this.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ToolKind {
    /// Drives the browser (navigate, click, ...): answers with the page.
    Browser,
    /// Reads what was captured (flows, endpoints, totals).
    Recon,
    /// Reads or changes the documentation and its scope.
    Doc,
    /// Hands the browser to the person at the keyboard.
    Human,
}

/// One tool of the registry.
pub struct ToolSpec {
    /// Unique name (`browser_click`).
    pub name: &'static str,
    /// What the tool does and when to use it; models read this.
    pub description: &'static str,
    /// What it acts on.
    pub kind: ToolKind,
    properties: fn() -> Value,
    required: &'static [&'static str],
    pub(crate) run: Handler,
}

impl std::fmt::Debug for ToolSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolSpec")
            .field("name", &self.name)
            .field("kind", &self.kind)
            .finish_non_exhaustive()
    }
}

impl ToolSpec {
    /// The JSON Schema of the arguments: an object with these properties,
    /// no others.
    #[must_use]
    pub fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": (self.properties)(),
            "required": self.required,
            "additionalProperties": false,
        })
    }

    /// The tool as the model sees it.
    #[must_use]
    pub fn definition(&self) -> ToolDefinition {
        ToolDefinition {
            name: self.name.to_owned(),
            description: self.description.to_owned(),
            input_schema: self.input_schema(),
        }
    }
}

/// Every tool, in a fixed order.
///
/// ```
/// use ar_agent::agent::{ToolKind, registry};
/// let click = registry().iter().find(|t| t.name == "browser_click").unwrap();
/// assert_eq!(click.kind, ToolKind::Browser);
/// assert_eq!(click.input_schema()["required"][0], "ref");
/// ```
#[must_use]
pub fn registry() -> &'static [ToolSpec] {
    &TOOLS
}

/// The registry's entry named `name`.
#[must_use]
pub fn find(name: &str) -> Option<&'static ToolSpec> {
    TOOLS.iter().find(|t| t.name == name)
}

/// Every tool as the model sees it, in the registry's order.
///
/// ```
/// let tools = ar_agent::agent::tool_definitions();
/// assert!(tools.iter().any(|t| t.name == "browser_click"));
/// assert!(tools.iter().all(|t| t.input_schema["type"] == "object"));
/// ```
#[must_use]
pub fn tool_definitions() -> Vec<ToolDefinition> {
    TOOLS.iter().map(ToolSpec::definition).collect()
}

fn reference() -> Value {
    json!({"type": "string", "description": "an element ref from the latest snapshot, e.g. e12"})
}

fn none() -> Value {
    json!({})
}

static TOOLS: [ToolSpec; 18] = [
    ToolSpec {
        name: "browser_navigate",
        description: "Load a URL (absolute, or a path relative to the current page) and wait for it to settle. Returns the new page's snapshot.",
        kind: ToolKind::Browser,
        properties: || json!({"url": {"type": "string"}}),
        required: &["url"],
        run: |c, s, a| Box::pin(tools::navigate(c, s, a)),
    },
    ToolSpec {
        name: "browser_snapshot",
        description: "The current page as an outline with element refs. Use it when you have no recent snapshot or a ref went stale; after actions you get a diff instead.",
        kind: ToolKind::Browser,
        properties: none,
        required: &[],
        run: |c, s, a| Box::pin(tools::snapshot(c, s, a)),
    },
    ToolSpec {
        name: "browser_click",
        description: "Click an element by ref. Returns what changed on the page and which API calls fired.",
        kind: ToolKind::Browser,
        properties: || json!({"ref": reference()}),
        required: &["ref"],
        run: |c, s, a| Box::pin(tools::click(c, s, a)),
    },
    ToolSpec {
        name: "browser_type",
        description: "Replace a field's text; with submit=true, then submit (Enter or the field's form).",
        kind: ToolKind::Browser,
        properties: || json!({"ref": reference(), "text": {"type": "string"}, "submit": {"type": "boolean", "default": false}}),
        required: &["ref", "text"],
        run: |c, s, a| Box::pin(tools::type_text(c, s, a)),
    },
    ToolSpec {
        name: "browser_select",
        description: "Choose an option of a select box by its value or visible label.",
        kind: ToolKind::Browser,
        properties: || json!({"ref": reference(), "option": {"type": "string"}}),
        required: &["ref", "option"],
        run: |c, s, a| Box::pin(tools::select(c, s, a)),
    },
    ToolSpec {
        name: "browser_press",
        description: "Press a key on the focused element: Enter, Escape, Tab, ArrowDown, PageDown, or a chord like Control+a.",
        kind: ToolKind::Browser,
        properties: || json!({"key": {"type": "string"}}),
        required: &["key"],
        run: |c, s, a| Box::pin(tools::press(c, s, a)),
    },
    ToolSpec {
        name: "browser_scroll",
        description: "Scroll the page (down, up, top, bottom) or an element into view (ref). Infinite lists load more this way.",
        kind: ToolKind::Browser,
        properties: || json!({"direction": {"type": "string", "enum": ["down", "up", "top", "bottom"]}, "ref": reference()}),
        required: &[],
        run: |c, s, a| Box::pin(tools::scroll(c, s, a)),
    },
    ToolSpec {
        name: "browser_back",
        description: "Go back one page in the history.",
        kind: ToolKind::Browser,
        properties: none,
        required: &[],
        run: |c, s, a| Box::pin(tools::back(c, s, a)),
    },
    ToolSpec {
        name: "browser_wait",
        description: "Wait for the network to go quiet (default) or for a number of milliseconds.",
        kind: ToolKind::Browser,
        properties: || json!({"ms": {"type": "integer", "minimum": 0, "maximum": 30000}}),
        required: &[],
        run: |c, s, a| Box::pin(tools::wait(c, s, a)),
    },
    ToolSpec {
        name: "flows_search",
        description: "List captured API endpoints (stable keys like `GET api.shop.test/users/{userId}`, flow counts, statuses, a preview of the response shape; no bodies). Optional text query matches keys and hosts.",
        kind: ToolKind::Recon,
        properties: || json!({"query": {"type": "string"}}),
        required: &[],
        run: |c, s, a| Box::pin(tools::flows_search(c, s, a)),
    },
    ToolSpec {
        name: "flows_get",
        description: "One endpoint's sample requests and responses (redacted, bodies clipped to a budget). Use the exact key from flows_search.",
        kind: ToolKind::Recon,
        properties: || json!({"key": {"type": "string"}, "max_bytes": {"type": "integer", "minimum": 500, "maximum": 20000}}),
        required: &["key"],
        run: |c, s, a| Box::pin(tools::flows_get(c, s, a)),
    },
    ToolSpec {
        name: "replay",
        description: "Send one captured request of an endpoint again through ar's proxy, edited: another path and query on the same host, method, headers to set, body. Headers you leave out (credentials included) go as captured; a value left as you saw it redacted goes as captured. Answers the status and the body (redacted, clipped); the exchange is captured like any other.",
        kind: ToolKind::Recon,
        properties: || {
            json!({
                "key": {"type": "string"},
                "path": {"type": "string"},
                "method": {"type": "string"},
                "headers": {"type": "object", "additionalProperties": {"type": "string"}},
                "body": {"type": "string"},
                "max_bytes": {"type": "integer", "minimum": 200, "maximum": 20000}
            })
        },
        required: &["key"],
        run: |c, s, a| Box::pin(super::replay::replay(c, s, a)),
    },
    ToolSpec {
        name: "flows_stats",
        description: "Totals: flows captured, in and out of scope, endpoints per host, hosts left out of the spec.",
        kind: ToolKind::Recon,
        properties: none,
        required: &[],
        run: |c, s, a| Box::pin(tools::flows_stats(c, s, a)),
    },
    ToolSpec {
        name: "doc_status",
        description: "What the spec holds, which endpoints are new since you last looked, and open questions (path segments that might be parameters, endpoints seen with one method or one status only) that another action could settle.",
        kind: ToolKind::Doc,
        properties: none,
        required: &[],
        run: |c, s, a| Box::pin(tools::doc_status(c, s, a)),
    },
    ToolSpec {
        name: "doc_annotate",
        description: "Name and describe an endpoint in the spec: operationId (camelCase), one-line summary, description, tag.",
        kind: ToolKind::Doc,
        properties: || {
            json!({
                "key": {"type": "string"},
                "operation_id": {"type": "string"},
                "summary": {"type": "string"},
                "description": {"type": "string"},
                "tag": {"type": "string"}
            })
        },
        required: &["key"],
        run: |c, s, a| Box::pin(tools::annotate(c, s, a)),
    },
    ToolSpec {
        name: "scope_add",
        description: "Document a host that is left out of the spec (e.g. the site's API on another domain); flows already captured from it are documented at once.",
        kind: ToolKind::Doc,
        properties: || json!({"host": {"type": "string"}}),
        required: &["host"],
        run: |c, s, a| Box::pin(tools::scope(c, s, a, true)),
    },
    ToolSpec {
        name: "scope_remove",
        description: "Stop documenting a host (e.g. a third-party service that crept in); its endpoints leave the spec at once.",
        kind: ToolKind::Doc,
        properties: || json!({"host": {"type": "string"}}),
        required: &["host"],
        run: |c, s, a| Box::pin(tools::scope(c, s, a, false)),
    },
    ToolSpec {
        name: "ask_human",
        description: "Hand the browser to the user with a reason (a login, a captcha, a payment, a choice only they can make) and wait until they give it back. Returns what their browsing added.",
        kind: ToolKind::Human,
        properties: || json!({"reason": {"type": "string"}}),
        required: &["reason"],
        run: |c, s, a| Box::pin(tools::ask_human(c, s, a)),
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_every_required_argument_is_a_property() {
        let mut names: Vec<&str> = TOOLS.iter().map(|t| t.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), TOOLS.len());
        for tool in &TOOLS {
            let schema = tool.input_schema();
            for required in tool.required {
                assert!(
                    schema["properties"].get(*required).is_some(),
                    "{}: {required}",
                    tool.name
                );
            }
        }
    }
}
