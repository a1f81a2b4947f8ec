//! The MCP handler: tools (the registry's and the server's own), resources
//! (each site's spec, API.md and endpoint list) and their change
//! notifications.
//!
//! A tool failure is a tool result with `isError` and the same JSON the
//! agent's model gets (`{"error": "stale_ref", "message": "..."}`, also as
//! structured content), never a protocol error: clients show a tool result
//! to their model, so it can re-plan, where a protocol error reads as a crash.
//!
//! The server speaks the protocol revisions that open with `initialize`
//! (up to 2025-11-25): those are what MCP clients such as Claude Code and
//! Cursor speak, and in them the server may ask the client (elicitation for
//! `ask_human`) and push `notifications/resources/updated` on its own.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use ar_agent::agent::{ToolError, ToolKind};
use ar_store::Client;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ProtocolVersion,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceContents, ResourceUpdatedNotificationParam, ServerCapabilities, ServerConfig,
    SubscribeRequestParams, UnsubscribeRequestParams,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};

use super::catalog::{self, Entry, Own, SITE_ARG};
use super::docs::{self, Format};
use super::sites::{Site, Sites, tool_error};
use ar_session::session::summary_for_agent;

/// The newest protocol revision served (see the module docs).
const NEWEST: ProtocolVersion = ProtocolVersion::V_2025_11_25;

/// What a client's model reads first.
const INSTRUCTIONS: &str = "ar reverse-engineers a website's HTTP API while you browse it. \
Call site_open with the site's url (it returns a site id), then drive the browser with the \
browser_* tools: browser_snapshot shows the page with element refs (e12) that browser_click, \
browser_type and browser_select take; after an action you get what changed and the API \
endpoints it made the page call. flows_search, flows_get and endpoints show what was captured; \
spec and api_md (or the resources ar://<site>/openapi.yaml, API.md, endpoints.json) the \
documentation, which grows with every action. explore runs ar's own explorer. When only a \
person can go on (a login, a captcha), call ask_human. Secrets are redacted everywhere.";

/// The pages `explore` visits when not told.
const EXPLORE_PAGES: u64 = 10;

/// One client connection's handler (stdio has one; HTTP one per MCP session).
/// Sites are shared by every connection; subscriptions are the connection's.
#[derive(Clone)]
pub(crate) struct ArMcp {
    sites: Arc<Sites>,
    /// Subscribed resource URIs, each with the token of its watcher.
    subscribed: Arc<Mutex<HashMap<String, u64>>>,
}

impl ArMcp {
    pub(crate) fn new(sites: Arc<Sites>) -> Self {
        Self {
            sites,
            subscribed: Arc::new(Mutex::new(HashMap::new())),
        }
    }

    async fn call(
        &self,
        name: &str,
        mut args: Value,
        context: &RequestContext<RoleServer>,
    ) -> Result<String, ToolError> {
        let entry = catalog::entry(name).ok_or_else(|| {
            tool_error(
                "unknown_tool",
                format!("there is no tool {name:?}; use one of the tools listed"),
            )
        })?;
        let site_id = match args.as_object_mut().and_then(|a| a.remove(SITE_ARG)) {
            None | Some(Value::Null) => None,
            Some(Value::String(id)) => Some(id),
            Some(other) => {
                return Err(tool_error(
                    "invalid_arguments",
                    format!("site must be a string (a site id), not {other}"),
                ));
            }
        };
        let site = || self.sites.get(site_id.as_deref());
        match entry {
            Entry::Registry(spec) => {
                let site = site()?;
                // The explorer or the user has the browser: no second driver.
                if matches!(spec.kind, ToolKind::Browser | ToolKind::Human)
                    && let Some(busy) = site.busy().await
                {
                    return Err(busy);
                }
                tokio::select! {
                    result = site.tools.call(spec.name, &args) => result,
                    () = context.ct.cancelled() => Err(tool_error("cancelled", "the client cancelled the call")),
                }
            }
            Entry::Own(Own::SiteOpen) => self.open(args, context).await,
            Entry::Own(Own::SiteList) => Ok(self.list()),
            Entry::Own(Own::SiteSave) => site()?.save().await,
            Entry::Own(Own::SiteClose) => {
                let said = self.sites.close(site_id.as_deref()).await?;
                let _ = context.peer.notify_resource_list_changed().await;
                Ok(said)
            }
            Entry::Own(Own::Spec) => {
                let format = Format::parse(args.get("format").and_then(Value::as_str))?;
                let path = args.get("path").and_then(Value::as_str);
                docs::spec(&*site()?, format, path).await
            }
            Entry::Own(Own::ApiMd) => docs::markdown(&*site()?).await,
            Entry::Own(Own::Endpoints) => {
                let query = args.get("query").and_then(Value::as_str).map(str::to_owned);
                docs::endpoints(&*site()?, query).await
            }
            Entry::Own(Own::Explore) => {
                let pages = args
                    .get("pages")
                    .and_then(Value::as_u64)
                    .unwrap_or(EXPLORE_PAGES);
                let time = args
                    .get("seconds")
                    .and_then(Value::as_u64)
                    .map(Duration::from_secs);
                let pages = usize::try_from(pages.clamp(1, 200)).unwrap_or(1);
                site()?.explore(pages, time, context.ct.clone()).await
            }
            Entry::Own(Own::HumanDone) => {
                let site = site()?;
                let Some(before) = site.take_handoff() else {
                    return Err(tool_error(
                        "not_handed_off",
                        "the user does not have the browser: human_done follows an ask_human that told you to call it",
                    ));
                };
                site.drive_as(Client::Agent).await;
                Ok(summary_for_agent(site.counters().since(before)))
            }
        }
    }

    async fn open(
        &self,
        args: Value,
        context: &RequestContext<RoleServer>,
    ) -> Result<String, ToolError> {
        let (site, said) = self.sites.open(args, context.peer.clone()).await?;
        let _ = context.peer.notify_resource_list_changed().await;
        Ok(format!(
            "site {:?} is open: {}\n{}\nresources: {}",
            site.id,
            site.target,
            said.trim_end(),
            ResourceKind::ALL.map(|kind| kind.uri(&site.id)).join(", ")
        ))
    }

    fn list(&self) -> String {
        let sites = self.sites.list();
        if sites.is_empty() {
            return "no site is open: site_open opens one".to_owned();
        }
        let lines: Vec<String> = sites
            .iter()
            .map(|site| {
                let c = site.counters();
                format!(
                    "{}  {}  {} flows ({} in scope), {} endpoints  {}",
                    site.id,
                    site.target,
                    c.flows,
                    c.in_scope_flows,
                    c.endpoints,
                    site.out_dir.display()
                )
            })
            .collect();
        lines.join("\n")
    }

    fn resource(&self, uri: &str) -> Result<(Arc<Site>, ResourceKind), ErrorData> {
        let not_found = || {
            ErrorData::resource_not_found(
                format!("no resource {uri}: resources/list names the open sites' resources"),
                None,
            )
        };
        let (id, file) = uri
            .strip_prefix("ar://")
            .and_then(|rest| rest.rsplit_once('/'))
            .ok_or_else(not_found)?;
        let kind = ResourceKind::ALL
            .into_iter()
            .find(|k| k.file() == file)
            .ok_or_else(not_found)?;
        let site = self.sites.get(Some(id)).map_err(|_| not_found())?;
        Ok((site, kind))
    }

    /// Tells the client each time `uri`'s site rewrites its documents, until
    /// it unsubscribes, the site closes or the client goes.
    fn watch(&self, uri: String, site: &Site, peer: rmcp::Peer<RoleServer>) {
        let token = next_token();
        self.subscribed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(uri.clone(), token);
        let subscribed = Arc::clone(&self.subscribed);
        let mut written = site.written.clone();
        written.borrow_and_update();
        tokio::spawn(async move {
            while written.changed().await.is_ok() {
                let current = subscribed
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .get(&uri)
                    .copied();
                if current != Some(token) {
                    break;
                }
                let update = ResourceUpdatedNotificationParam::new(uri.clone());
                if peer.notify_resource_updated(update).await.is_err() {
                    break;
                }
            }
        });
    }
}

/// A distinct token per subscription (a re-subscription replaces the watcher).
fn next_token() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// The resources every site has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ResourceKind {
    Spec,
    Markdown,
    Endpoints,
}

impl ResourceKind {
    const ALL: [Self; 3] = [Self::Spec, Self::Markdown, Self::Endpoints];

    fn file(self) -> &'static str {
        match self {
            Self::Spec => "openapi.yaml",
            Self::Markdown => "API.md",
            Self::Endpoints => "endpoints.json",
        }
    }

    fn uri(self, site: &str) -> String {
        format!("ar://{site}/{}", self.file())
    }

    fn mime(self) -> &'static str {
        match self {
            Self::Spec => "application/yaml",
            Self::Markdown => "text/markdown",
            Self::Endpoints => "application/json",
        }
    }

    fn describe(self, site: &str) -> String {
        match self {
            Self::Spec => format!("the OpenAPI 3.0 spec of {site}, as it grows"),
            Self::Markdown => format!("API.md of {site}: the readable guide"),
            Self::Endpoints => format!("the endpoints of {site} with their evidence"),
        }
    }

    async fn read(self, site: &Site) -> Result<String, ToolError> {
        match self {
            Self::Spec => docs::spec(site, Format::Yaml, None).await,
            Self::Markdown => docs::markdown(site).await,
            Self::Endpoints => docs::endpoints(site, None).await,
        }
    }
}

/// A failed call as the client's model should see it.
fn error_result(error: &ToolError) -> CallToolResult {
    let mut result = CallToolResult::error(vec![ContentBlock::text(error.to_json())]);
    result.structured_content = Some(json!({"error": error.code, "message": error.message}));
    result
}

#[allow(
    deprecated,
    reason = "resources/subscribe is how the initialize-era protocol subscribes"
)]
impl ServerHandler for ArMcp {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .enable_resources_subscribe()
                .enable_resources_list_changed()
                .build(),
        )
        .with_protocol_version(NEWEST)
        .with_server_info(Implementation::new("ar", env!("CARGO_PKG_VERSION")))
        .with_instructions(INSTRUCTIONS)
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(ProtocolVersion::known_up_to(&NEWEST))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(catalog::tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = Value::Object(request.arguments.unwrap_or_default());
        let started = std::time::Instant::now();
        let result = match self.call(&request.name, args, &context).await {
            Ok(text) => {
                tracing::debug!(tool = %request.name, bytes = text.len(), ms = started.elapsed().as_millis() as u64, "tool result");
                CallToolResult::success(vec![ContentBlock::text(text)])
            }
            Err(error) => {
                tracing::info!(tool = %request.name, code = %error.code, "tool error: {}", error.message);
                error_result(&error)
            }
        };
        Ok(result.into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let resources = self
            .sites
            .list()
            .iter()
            .flat_map(|site| {
                ResourceKind::ALL.map(|kind| {
                    Resource::new(kind.uri(&site.id), format!("{} {}", site.id, kind.file()))
                        .with_description(kind.describe(&site.id))
                        .with_mime_type(kind.mime())
                })
            })
            .collect();
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let (site, kind) = self.resource(&request.uri)?;
        let text = kind
            .read(&site)
            .await
            .map_err(|e| ErrorData::internal_error(e.message, None))?;
        let contents = ResourceContents::text(text, request.uri).with_mime_type(kind.mime());
        Ok(ReadResourceResult::new(vec![contents]).into())
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let (site, _) = self.resource(&request.uri)?;
        self.watch(request.uri, &site, context.peer.clone());
        Ok(())
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.subscribed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&request.uri);
        Ok(())
    }
}
