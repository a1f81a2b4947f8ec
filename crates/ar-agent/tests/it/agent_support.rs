//! A small scripted site behind the `Browser` trait for agent tests: pages
//! with links and buttons, refs that go stale on navigation, and the API
//! traffic each page "makes" fed into a `MemoryWorkspace` (what the capture
//! proxy does in `ar`), with an Authorization header, a cookie and a
//! `?token=` URL so tests can check that none of them reaches the model.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ar_agent::agent::{AgentConfig, MemoryWorkspace};
use ar_agent::browser::{
    Browser, BrowserError, DialogAction, ElementInfo, OutlineLine, PageInfo, Ref, Scroll,
    SentRequest, Snapshot, Wait,
};
use ar_store::scope::{Scope, ScopeConfig};
use ar_store::store::{EndpointStore, StoreConfig};
use ar_store::{Body, Client, Flow, FlowId, HttpVersion, Request, Response, Timestamp};

pub(crate) const BEARER: &str = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJlLXNlY3JldA";
pub(crate) const COOKIE_SECRET: &str = "sess-7f3a9c1e5b2d4f6a8c0e";
pub(crate) const URL_TOKEN: &str = "tok9Q2xW7vLm3Kp8Rt";
pub(crate) const BODY_JWT: &str = "eyJhbGciOiJIUzI1NiJ9.eyJ1c2VyIjoiYm9iIn0.Ym9keS1zZWNyZXQtc2ln";

/// Every secret the fake site sends, for "never in a request" assertions.
pub(crate) const SECRETS: [&str; 4] = [BEARER, COOKIE_SECRET, URL_TOKEN, BODY_JWT];

#[derive(Clone)]
struct Element {
    id: u32,
    role: &'static str,
    name: String,
    /// Where a click goes (links) or `None` (buttons reveal `reveals`).
    href: Option<String>,
    reveals: Option<String>,
}

fn link(id: u32, name: &str, href: &str) -> Element {
    Element {
        id,
        role: "link",
        name: name.to_owned(),
        href: Some(href.to_owned()),
        reveals: None,
    }
}

#[derive(Default)]
struct State {
    url: String,
    revealed: Vec<String>,
    history: Vec<String>,
    next_flow: u64,
    log: Vec<String>,
}

/// The fake shop.
pub(crate) struct FakeShop {
    workspace: Arc<MemoryWorkspace>,
    state: Mutex<State>,
}

pub(crate) fn workspace() -> Arc<MemoryWorkspace> {
    let scope = Scope::new(ScopeConfig::for_target("https://shop.test/")).unwrap();
    Arc::new(MemoryWorkspace::new(EndpointStore::new(
        scope,
        StoreConfig::default(),
    )))
}

/// Settles instantly: the fake has nothing in flight.
pub(crate) fn config() -> AgentConfig {
    AgentConfig::default().with_settle(Wait::Time(Duration::ZERO))
}

impl FakeShop {
    pub(crate) fn new(workspace: Arc<MemoryWorkspace>) -> Arc<Self> {
        Arc::new(Self {
            workspace,
            state: Mutex::new(State::default()),
        })
    }

    /// What the browser was asked to do.
    pub(crate) fn log(&self) -> Vec<String> {
        self.state.lock().unwrap().log.clone()
    }

    fn elements(url: &str) -> Vec<Element> {
        let path = url.trim_start_matches("https://shop.test");
        match path {
            "/" | "" => vec![
                link(1, "Products", "/products"),
                link(2, "Account", "/account"),
            ],
            "/products" => vec![
                link(1, "Home", "/"),
                link(3, "Red mug", "/products/1"),
                link(4, "Blue mug", "/products/2"),
                Element {
                    id: 5,
                    role: "button",
                    name: "Load more".into(),
                    href: None,
                    reveals: Some("Green mug".into()),
                },
            ],
            p if p.starts_with("/products/") => vec![
                link(1, "Home", "/"),
                link(6, "Back to products", "/products"),
            ],
            _ => vec![link(1, "Home", "/")],
        }
    }

    fn flow(&self, state: &mut State, method: &str, url: &str, json: &str) {
        state.next_flow += 1;
        let mut request = Request::new(method, url, HttpVersion::Http11);
        request
            .headers
            .push("Authorization", format!("Bearer {BEARER}"));
        request
            .headers
            .push("Cookie", format!("session={COOKIE_SECRET}"));
        let mut response = Response::new(200, HttpVersion::Http11);
        response.headers.push("Content-Type", "application/json");
        response.body =
            Body::from_decoded(Some("application/json".into()), json.as_bytes().to_vec());
        let flow = Flow::new(
            FlowId(state.next_flow),
            Timestamp::from_unix_micros(state.next_flow as i64),
            Client::Agent,
            request,
        )
        .with_response(response);
        self.workspace.ingest(&flow);
    }

    /// The API calls a page load makes.
    fn load(&self, state: &mut State, url: &str) {
        state.url = url.to_owned();
        state.revealed.clear();
        let path = url.trim_start_matches("https://shop.test").to_owned();
        match path.as_str() {
            "/" | "" => self.flow(
                state,
                "GET",
                "https://shop.test/api/session",
                r#"{"user":"alice"}"#,
            ),
            "/products" => self.flow(
                state,
                "GET",
                &format!("https://api.shop.test/products?page=1&token={URL_TOKEN}"),
                &format!(
                    r#"{{"items":[{{"id":1,"name":"Red mug","price":12.5}}],"next":"{BODY_JWT}"}}"#
                ),
            ),
            p if p.starts_with("/products/") => {
                let id = p.trim_start_matches("/products/");
                self.flow(
                    state,
                    "GET",
                    &format!("https://api.shop.test/products/{id}"),
                    &format!(r#"{{"id":{id},"name":"Mug","price":12.5}}"#),
                );
            }
            _ => {}
        }
    }
}

#[async_trait::async_trait]
impl Browser for FakeShop {
    async fn navigate(&self, url: &str) -> Result<PageInfo, BrowserError> {
        let mut state = self.state.lock().unwrap();
        state.log.push(format!("navigate {url}"));
        if !url.starts_with("https://shop.test") {
            return Err(BrowserError::NavigationFailed {
                url: url.to_owned(),
                reason: "net::ERR_NAME_NOT_RESOLVED".into(),
            });
        }
        let previous = state.url.clone();
        state.history.push(previous);
        self.load(&mut state, url);
        Ok(PageInfo {
            url: url.to_owned(),
            title: "Shop".into(),
        })
    }

    async fn back(&self) -> Result<PageInfo, BrowserError> {
        let mut state = self.state.lock().unwrap();
        let previous = state.history.pop().unwrap_or_default();
        self.load(&mut state, &previous);
        Ok(PageInfo {
            url: previous,
            title: "Shop".into(),
        })
    }

    async fn snapshot(&self) -> Result<Snapshot, BrowserError> {
        let state = self.state.lock().unwrap();
        let elements = Self::elements(&state.url);
        let mut lines = vec![
            OutlineLine::new(0, "heading")
                .name("Shop")
                .attr("level", "1"),
        ];
        let mut infos = Vec::new();
        for e in &elements {
            let mut line = OutlineLine::new(0, e.role)
                .name(e.name.clone())
                .reference(Ref::new(e.id));
            if let Some(href) = &e.href {
                line = line.attr("url", href.clone());
            }
            lines.push(line);
            infos.push(ElementInfo::new(Ref::new(e.id), e.role, e.name.clone()));
        }
        for text in &state.revealed {
            lines.push(OutlineLine::new(0, "text").value(text.clone()));
        }
        Ok(Snapshot {
            url: state.url.clone(),
            title: "Shop".into(),
            lines,
            elements: infos,
            omitted_lines: 0,
        })
    }

    async fn click(&self, target: Ref) -> Result<(), BrowserError> {
        let href = {
            let mut state = self.state.lock().unwrap();
            state.log.push(format!("click {target}"));
            let elements = Self::elements(&state.url);
            let Some(element) = elements.iter().find(|e| e.id == target.number()) else {
                // Refs 1..=6 exist somewhere on the site: gone from this page means stale.
                return Err(if target.number() <= 6 {
                    BrowserError::StaleRef { reference: target }
                } else {
                    BrowserError::NotFound {
                        what: format!("ref {target}"),
                        hint: "take a new snapshot".into(),
                    }
                });
            };
            if let Some(text) = &element.reveals {
                state.revealed.push(text.clone());
                self.flow(
                    &mut state,
                    "GET",
                    "https://api.shop.test/products?page=2",
                    r#"{"items":[]}"#,
                );
                return Ok(());
            }
            element.href.clone()
        };
        if let Some(href) = href {
            self.navigate(&format!("https://shop.test{href}")).await?;
        }
        Ok(())
    }

    async fn double_click(&self, target: Ref) -> Result<(), BrowserError> {
        self.click(target).await
    }

    async fn context_click(&self, target: Ref) -> Result<(), BrowserError> {
        Err(BrowserError::NotInteractable {
            reference: target,
            reason: "this fake shop has no context menus".into(),
        })
    }

    async fn type_text(&self, target: Ref, _text: &str, _submit: bool) -> Result<(), BrowserError> {
        Err(BrowserError::NotInteractable {
            reference: target,
            reason: "not a text field".into(),
        })
    }

    async fn select(&self, target: Ref, option: &str) -> Result<String, BrowserError> {
        Err(BrowserError::NotFound {
            what: format!("option {option:?} in {target}"),
            hint: "no select here".into(),
        })
    }

    async fn press(&self, _key: &str) -> Result<(), BrowserError> {
        Ok(())
    }

    async fn scroll(&self, _scroll: Scroll) -> Result<(), BrowserError> {
        Ok(())
    }

    async fn wait(&self, _wait: Wait) -> Result<(), BrowserError> {
        Ok(())
    }

    async fn page(&self) -> Result<PageInfo, BrowserError> {
        let state = self.state.lock().unwrap();
        Ok(PageInfo {
            url: state.url.clone(),
            title: "Shop".into(),
        })
    }

    /// The agent reads what the page sent from the captured flows, not from here.
    async fn take_requests(&self) -> Result<Vec<SentRequest>, BrowserError> {
        Ok(Vec::new())
    }

    async fn screenshot(&self, path: &Path) -> Result<(), BrowserError> {
        Err(BrowserError::Io {
            path: path.display().to_string(),
            source: std::io::Error::other("the fake browser has no pixels"),
        })
    }

    async fn handle_dialog(&self, _action: DialogAction) -> Result<String, BrowserError> {
        Err(BrowserError::NoDialog)
    }
}

/// The tool results (content, is_error) in the last user message of a recorded request.
pub(crate) fn tool_results(request: &ar_mock_llm::RecordedRequest) -> Vec<(String, bool)> {
    let json = request.json();
    let mut out = Vec::new();
    let messages = json["messages"].as_array().cloned().unwrap_or_default();
    // Anthropic: tool_result blocks in the last user message.
    if let Some(last) = messages.iter().rev().find(|m| m["role"] == "user")
        && let Some(blocks) = last["content"].as_array()
    {
        for b in blocks {
            if b["type"] == "tool_result" {
                let content = match &b["content"] {
                    serde_json::Value::String(s) => s.clone(),
                    serde_json::Value::Array(parts) => {
                        parts.iter().filter_map(|p| p["text"].as_str()).collect()
                    }
                    _ => String::new(),
                };
                out.push((content, b["is_error"].as_bool().unwrap_or(false)));
            }
        }
    }
    // OpenAI: trailing `tool` messages.
    for m in messages
        .iter()
        .rev()
        .take_while(|m| m["role"] == "tool" || m["role"] == "user")
    {
        if m["role"] == "tool" {
            out.insert(
                0,
                (m["content"].as_str().unwrap_or_default().to_owned(), false),
            );
        }
    }
    out
}

impl FakeShop {
    /// Opens the home page (what the session does before the agent's turn).
    pub(crate) async fn navigate_home(&self) {
        self.navigate("https://shop.test/").await.unwrap();
    }
}
