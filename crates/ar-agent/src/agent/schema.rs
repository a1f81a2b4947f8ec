//! The tool definitions the model sees: names, when to use them, and the
//! JSON Schema of their arguments. The list is stable across turns (it is
//! part of the cached prompt prefix), so never build it from live state.

use serde_json::{Value, json};

use crate::llm::ToolDefinition;

fn tool(name: &str, description: &str, properties: &Value, required: &[&str]) -> ToolDefinition {
    ToolDefinition {
        name: name.to_owned(),
        description: description.to_owned(),
        input_schema: json!({
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": false,
        }),
    }
}

/// Every tool the agent offers, in a fixed order.
///
/// ```
/// let tools = ar_agent::agent::tool_definitions();
/// assert!(tools.iter().any(|t| t.name == "browser_click"));
/// assert!(tools.iter().all(|t| t.input_schema["type"] == "object"));
/// ```
#[must_use]
pub fn tool_definitions() -> Vec<ToolDefinition> {
    let reference = json!({"type": "string", "description": "an element ref from the latest snapshot, e.g. e12"});
    vec![
        tool(
            "browser_navigate",
            "Load a URL (absolute, or a path relative to the current page) and wait for it to settle. Returns the new page's snapshot.",
            &json!({"url": {"type": "string"}}),
            &["url"],
        ),
        tool(
            "browser_snapshot",
            "The current page as an outline with element refs. Use it when you have no recent snapshot or a ref went stale; after actions you get a diff instead.",
            &json!({}),
            &[],
        ),
        tool(
            "browser_click",
            "Click an element by ref. Returns what changed on the page and which API calls fired.",
            &json!({"ref": reference}),
            &["ref"],
        ),
        tool(
            "browser_type",
            "Replace a field's text; with submit=true, then submit (Enter or the field's form).",
            &json!({"ref": reference, "text": {"type": "string"}, "submit": {"type": "boolean", "default": false}}),
            &["ref", "text"],
        ),
        tool(
            "browser_select",
            "Choose an option of a select box by its value or visible label.",
            &json!({"ref": reference, "option": {"type": "string"}}),
            &["ref", "option"],
        ),
        tool(
            "browser_press",
            "Press a key on the focused element: Enter, Escape, Tab, ArrowDown, PageDown, or a chord like Control+a.",
            &json!({"key": {"type": "string"}}),
            &["key"],
        ),
        tool(
            "browser_scroll",
            "Scroll the page (down, up, top, bottom) or an element into view (ref). Infinite lists load more this way.",
            &json!({"direction": {"type": "string", "enum": ["down", "up", "top", "bottom"]}, "ref": reference}),
            &[],
        ),
        tool(
            "browser_back",
            "Go back one page in the history.",
            &json!({}),
            &[],
        ),
        tool(
            "browser_wait",
            "Wait for the network to go quiet (default) or for a number of milliseconds.",
            &json!({"ms": {"type": "integer", "minimum": 0, "maximum": 30000}}),
            &[],
        ),
        tool(
            "flows_search",
            "List captured API endpoints (stable keys like `GET api.shop.test/users/{userId}`, flow counts, statuses, a preview of the response shape; no bodies). Optional text query matches keys and hosts.",
            &json!({"query": {"type": "string"}}),
            &[],
        ),
        tool(
            "flows_get",
            "One endpoint's sample requests and responses (redacted, bodies clipped to a budget). Use the exact key from flows_search.",
            &json!({"key": {"type": "string"}, "max_bytes": {"type": "integer", "minimum": 500, "maximum": 20000}}),
            &["key"],
        ),
        tool(
            "flows_stats",
            "Totals: flows captured, in and out of scope, endpoints per host, hosts left out of the spec.",
            &json!({}),
            &[],
        ),
        tool(
            "doc_status",
            "What the spec holds, which endpoints are new since you last looked, and open questions (path segments that might be parameters, endpoints seen with one method or one status only) that another action could settle.",
            &json!({}),
            &[],
        ),
        tool(
            "doc_annotate",
            "Name and describe an endpoint in the spec: operationId (camelCase), one-line summary, description, tag.",
            &json!({
                "key": {"type": "string"},
                "operation_id": {"type": "string"},
                "summary": {"type": "string"},
                "description": {"type": "string"},
                "tag": {"type": "string"}
            }),
            &["key"],
        ),
        tool(
            "scope_add",
            "Document a host that is left out of the spec (e.g. the site's API on another domain); flows already captured from it are documented at once.",
            &json!({"host": {"type": "string"}}),
            &["host"],
        ),
        tool(
            "scope_remove",
            "Stop documenting a host (e.g. a third-party service that crept in); its endpoints leave the spec at once.",
            &json!({"host": {"type": "string"}}),
            &["host"],
        ),
        tool(
            "ask_human",
            "Hand the browser to the user with a reason (a login, a captcha, a payment, a choice only they can make) and wait until they give it back. Returns what their browsing added.",
            &json!({"reason": {"type": "string"}}),
            &["reason"],
        ),
    ]
}
