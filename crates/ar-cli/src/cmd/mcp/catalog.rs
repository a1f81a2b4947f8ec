//! The tools `ar mcp` lists: first every tool of ar-agent's registry, under
//! the same name, description and argument schema, with one more optional
//! argument, `site`, that says which open site it acts on; then the server's
//! own tools (open, save and close sites, the spec and API.md, the endpoint
//! list, the explorer, the end of a hand-off).

use std::sync::Arc;

use ar_agent::agent::{ToolSpec, registry};
use rmcp::model::{JsonObject, Tool};
use serde_json::{Value, json};

use super::sites::open_schema;

/// The argument every site-bound tool takes.
pub(crate) const SITE_ARG: &str = "site";

/// A tool of the server's own (not in the agent's registry).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Own {
    SiteOpen,
    SiteList,
    SiteSave,
    SiteClose,
    Spec,
    ApiMd,
    Endpoints,
    Explore,
    HumanDone,
}

/// One of the server's own tools.
pub(crate) struct OwnSpec {
    pub(crate) name: &'static str,
    pub(crate) description: &'static str,
    properties: fn() -> Value,
    pub(crate) tool: Own,
}

/// What a tool name means.
pub(crate) enum Entry {
    /// A registry tool, run by the site's tool box.
    Registry(&'static ToolSpec),
    /// One of the server's own.
    Own(Own),
}

/// The tool named `name`.
pub(crate) fn entry(name: &str) -> Option<Entry> {
    if let Some(spec) = ar_agent::agent::find(name) {
        return Some(Entry::Registry(spec));
    }
    OWN.iter()
        .find(|o| o.name == name)
        .map(|o| Entry::Own(o.tool))
}

/// Every tool, registry first.
pub(crate) fn tools() -> Vec<Tool> {
    let shared = registry()
        .iter()
        .map(|spec| tool(spec.name, spec.description, with_site(spec.input_schema())));
    let own = OWN.iter().map(|o| {
        let schema = match o.tool {
            Own::SiteOpen => open_schema(),
            Own::SiteList => object(json!({})),
            _ => with_site(object((o.properties)())),
        };
        tool(o.name, o.description, schema)
    });
    shared.chain(own).collect()
}

/// `schema` with the optional `site` argument added.
pub(crate) fn with_site(mut schema: Value) -> Value {
    schema["properties"][SITE_ARG] = json!({
        "type": "string",
        "description": "the id site_open returned; may be left out while one site is open"
    });
    schema
}

fn object(properties: Value) -> Value {
    json!({"type": "object", "properties": properties, "additionalProperties": false})
}

fn tool(name: &'static str, description: &'static str, schema: Value) -> Tool {
    let schema: JsonObject = match schema {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    };
    Tool::new(name, description, Arc::new(schema))
}

static OWN: [OwnSpec; 9] = [
    OwnSpec {
        name: "site_open",
        description: "Open a site as `ar <url>` does: a Chromium (headed unless headless) behind ar's capture proxy, loading the URL. Everything the browser does from now on is captured, grouped into endpoints and written to an OpenAPI spec and API.md in the output directory. Returns the site id the other tools take.",
        properties: || json!({}),
        tool: Own::SiteOpen,
    },
    OwnSpec {
        name: "site_list",
        description: "The open sites: id, target, output directory, flows and endpoints captured.",
        properties: || json!({}),
        tool: Own::SiteList,
    },
    OwnSpec {
        name: "site_save",
        description: "Write the site's openapi.yaml, openapi.json, API.md, capture.har and session.json now (they are also rewritten within a second of each change, and on close).",
        properties: || json!({}),
        tool: Own::SiteSave,
    },
    OwnSpec {
        name: "site_close",
        description: "Close the site: stop its browser and proxy and write everything. The output directory can be carried on later (site_open with resume).",
        properties: || json!({}),
        tool: Own::SiteClose,
    },
    OwnSpec {
        name: "spec",
        description: "The OpenAPI 3.0 spec as it stands now (redacted), as YAML (default) or JSON; with path, only that path's item (e.g. /api/products/{productId}).",
        properties: || {
            json!({
                "format": {"type": "string", "enum": ["yaml", "json"], "default": "yaml"},
                "path": {"type": "string", "description": "one path of the spec, as written in it"}
            })
        },
        tool: Own::Spec,
    },
    OwnSpec {
        name: "api_md",
        description: "API.md as it stands now: the readable guide to the endpoints, and what was left out of the spec and why.",
        properties: || json!({}),
        tool: Own::ApiMd,
    },
    OwnSpec {
        name: "endpoints",
        description: "The endpoints as JSON with their evidence: the concrete paths each template stands for, statuses, query parameters, response types and the sample flows kept (redacted). Optional text query matches keys and hosts.",
        properties: || json!({"query": {"type": "string"}}),
        tool: Own::Endpoints,
    },
    OwnSpec {
        name: "explore",
        description: "Run ar's built-in explorer (no LLM) on the site for up to `pages` pages: it opens menus, tabs, dialogs and list entries, fills and submits forms, and never does anything destructive (unless the site was opened with explore_unsafe). Returns its report; the browser tools wait while it drives.",
        properties: || {
            json!({
                "pages": {"type": "integer", "minimum": 1, "maximum": 200, "default": 10},
                "seconds": {"type": "integer", "minimum": 1, "maximum": 3600, "description": "time budget [default: 180]"}
            })
        },
        tool: Own::Explore,
    },
    OwnSpec {
        name: "human_done",
        description: "The user says they are done after ask_human (when your client could not show them a form): gives the browser back to you and reports what their browsing added.",
        properties: || json!({}),
        tool: Own::HumanDone,
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mcp_tools_are_the_agents_registry_plus_the_servers_own() {
        let listed = tools();
        let agent = ar_agent::agent::tool_definitions();
        for (mcp, agent) in listed.iter().zip(&agent) {
            assert_eq!(mcp.name, agent.name);
            assert_eq!(mcp.description.as_deref(), Some(agent.description.as_str()));
            let mut schema = Value::Object((*mcp.input_schema).clone());
            assert!(schema["properties"][SITE_ARG].is_object(), "{}", mcp.name);
            schema["properties"]
                .as_object_mut()
                .unwrap()
                .remove(SITE_ARG);
            assert_eq!(schema, agent.input_schema, "{}", mcp.name);
            assert!(matches!(entry(&mcp.name), Some(Entry::Registry(_))));
        }
        let own: Vec<&str> = listed[agent.len()..]
            .iter()
            .map(|t| t.name.as_ref())
            .collect();
        assert_eq!(own, OWN.iter().map(|o| o.name).collect::<Vec<_>>());
        let mut names: Vec<&str> = listed.iter().map(|t| t.name.as_ref()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), listed.len(), "no name is listed twice");
    }
}
