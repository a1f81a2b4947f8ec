//! A scripted in-memory site behind the [`Browser`] trait, for explorer tests.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::Mutex;

use crate::browser::{
    Browser, BrowserError, DialogAction, ElementInfo, OutlineLine, PageInfo, Ref, Scroll,
    SentRequest, Snapshot, Wait,
};

/// What clicking an element does.
#[derive(Debug, Clone)]
pub(super) enum Effect {
    Nothing,
    Navigate(String),
    Reveal(Vec<FakeElement>),
    /// An in-page link: the URL gains the fragment and content is revealed.
    Anchor(String, Vec<FakeElement>),
    /// The page re-renders: whatever clicks revealed is gone.
    Rerender,
    /// What clicks revealed is rendered anew as these elements (a form that
    /// asks for other fields once a choice is made): every ref it had is stale.
    Replace(Vec<FakeElement>),
    /// A submit button whose form refuses text that is not a number in these
    /// fields (by field name): it then shows "<label> must be a number"
    /// beside each and sends nothing; otherwise it sends its requests.
    NumbersOnly(Vec<String>),
    /// A submit button whose form wants one of these boxes (by field name)
    /// checked: until one is, it shows "Choose at least one" after the last
    /// and sends nothing.
    AtLeastOne(Vec<String>),
    /// Hides the elements with these names, or shows them again; the state
    /// outlives page loads (a sidebar collapsed in local storage).
    Toggle(Vec<String>),
    /// A click only selects; a double-click navigates here.
    OpenOnDoubleClick(String),
    /// Switches the app's mode (kept across page loads, as in local storage).
    Mode(String),
    /// Opens a page and switches the app's mode on the way (a demo that
    /// opens in the other mode).
    NavigateInMode(String, String),
}

#[derive(Debug, Clone)]
pub(super) struct FakeElement {
    pub(super) info: ElementInfo,
    pub(super) effect: Effect,
    /// Requests the page sends when it is clicked (`"GET https://…"`).
    pub(super) sends: Vec<String>,
    /// The app mode it is shown in (`None`: every mode).
    pub(super) only_in: Option<String>,
    /// What a context click on it shows (its context menu's items).
    pub(super) context: Vec<FakeElement>,
}

impl FakeElement {
    /// The same element, sending `request` when clicked.
    pub(super) fn sending(mut self, request: &str) -> Self {
        self.sends.push(request.to_owned());
        self
    }

    /// The same element, inside dialog `dialog`.
    pub(super) fn in_dialog(mut self, dialog: u32) -> Self {
        self.info.dialog = Some(dialog);
        self
    }

    /// The same element, shown only while the app is in `mode` ("" is the default mode).
    pub(super) fn only_in(mut self, mode: &str) -> Self {
        self.only_in = Some(mode.to_owned());
        self
    }

    /// The same element, with a context menu of `items`.
    pub(super) fn with_context_menu(mut self, items: Vec<FakeElement>) -> Self {
        self.context = items;
        self
    }

    /// The same element, an entry of list `group`.
    pub(super) fn in_list(mut self, group: u32) -> Self {
        self.info.group = Some(group);
        self
    }
}

pub(super) fn link(name: &str, href: &str) -> FakeElement {
    let mut info = ElementInfo::new(Ref::new(0), "link", name);
    info.href = Some(href.to_owned());
    FakeElement {
        info,
        effect: Effect::Navigate(href.to_owned()),
        sends: Vec::new(),
        only_in: None,
        context: Vec::new(),
    }
}

pub(super) fn button(name: &str, effect: Effect) -> FakeElement {
    FakeElement {
        info: ElementInfo::new(Ref::new(0), "button", name),
        effect,
        sends: Vec::new(),
        only_in: None,
        context: Vec::new(),
    }
}

pub(super) fn element(role: &str, name: &str, effect: Effect) -> FakeElement {
    FakeElement {
        info: ElementInfo::new(Ref::new(0), role, name),
        effect,
        sends: Vec::new(),
        only_in: None,
        context: Vec::new(),
    }
}

pub(super) fn field(
    form: u32,
    role: &str,
    input_type: &str,
    field_name: &str,
    label: &str,
) -> FakeElement {
    let mut info = ElementInfo::new(Ref::new(0), role, label);
    info.tag = "input".into();
    info.input_type = Some(input_type.into());
    info.field_name = Some(field_name.into());
    info.form = Some(form);
    if role == "checkbox" {
        info.checked = Some(false);
    }
    FakeElement {
        info,
        effect: Effect::Nothing,
        sends: Vec::new(),
        only_in: None,
        context: Vec::new(),
    }
}

pub(super) fn submit(form: u32, name: &str) -> FakeElement {
    let mut element = button(name, Effect::Nothing);
    element.info.form = Some(form);
    element
}

#[derive(Default)]
struct State {
    current: String,
    /// Elements revealed on a page by clicks, until the page is loaded again.
    revealed: Vec<FakeElement>,
    /// Times [`Effect::Replace`] rendered them anew (their refs count from
    /// `1001 + 1000 * renders`).
    renders: u32,
    /// What the last snapshot handed out: ref number → element.
    handed_out: HashMap<u32, FakeElement>,
    /// Names hidden by a toggle.
    hidden: HashSet<String>,
    /// The app's mode ("" until an [`Effect::Mode`] changes it).
    mode: String,
    /// What was typed into each field, by field name.
    values: HashMap<String, String>,
    /// Fields (by field name) a form refused, with the message shown after
    /// each, until it is submitted whole.
    refused: HashMap<String, String>,
    /// Boxes (by field name) clicked an odd number of times.
    toggled: HashSet<String>,
    /// Requests sent and not yet taken.
    sent: Vec<SentRequest>,
    log: Vec<String>,
}

/// The fake browser: pages by URL, and a log of every action.
pub(super) struct FakeBrowser {
    pages: HashMap<String, Vec<FakeElement>>,
    /// Requests each page sends when it loads.
    loads: HashMap<String, Vec<String>>,
    /// Pages that send the browser on to another when they load.
    redirects: HashMap<String, String>,
    state: Mutex<State>,
}

/// `"GET https://…"` as a request the page sent.
fn request(line: &str) -> SentRequest {
    let (method, url) = line.split_once(' ').unwrap_or(("GET", line));
    SentRequest {
        method: method.to_owned(),
        url: url.to_owned(),
        kind: "Fetch".to_owned(),
    }
}

impl FakeBrowser {
    pub(super) fn new(pages: impl IntoIterator<Item = (&'static str, Vec<FakeElement>)>) -> Self {
        let pages = pages
            .into_iter()
            .map(|(url, elements)| (url.to_owned(), elements))
            .collect();
        Self {
            pages,
            loads: HashMap::new(),
            redirects: HashMap::new(),
            state: Mutex::new(State::default()),
        }
    }

    /// The same site, `url` sending `requests` whenever it loads.
    pub(super) fn loading(mut self, url: &str, requests: &[&str]) -> Self {
        self.loads.insert(
            url.to_owned(),
            requests.iter().map(|r| (*r).to_owned()).collect(),
        );
        self
    }

    /// The same site, `from` sending the browser on to `to` when it loads
    /// (`/` to `/dashboard`).
    pub(super) fn redirecting(mut self, from: &str, to: &str) -> Self {
        self.redirects.insert(from.to_owned(), to.to_owned());
        self
    }

    /// Every request the site received, in order.
    pub(super) fn requests(&self) -> Vec<String> {
        self.log()
            .into_iter()
            .filter_map(|l| l.strip_prefix("request ").map(str::to_owned))
            .collect()
    }

    fn send(state: &mut State, line: &str) {
        state.log.push(format!("request {line}"));
        state.sent.push(request(line));
    }

    pub(super) fn log(&self) -> Vec<String> {
        self.state.lock().unwrap().log.clone()
    }

    fn go(&self, state: &mut State, url: &str) -> Result<PageInfo, BrowserError> {
        if !self.pages.contains_key(url) {
            return Err(BrowserError::NavigationFailed {
                url: url.to_owned(),
                reason: "net::ERR_NAME_NOT_RESOLVED".into(),
            });
        }
        state.log.push(format!("open {url}"));
        let url = self.redirects.get(url).map_or(url, String::as_str);
        state.current = url.to_owned();
        state.revealed.clear();
        for line in self.loads.get(url).into_iter().flatten() {
            Self::send(state, line);
        }
        Ok(PageInfo {
            url: url.to_owned(),
            title: String::new(),
        })
    }

    fn element(state: &State, target: Ref) -> Result<FakeElement, BrowserError> {
        state
            .handed_out
            .get(&target.number())
            .cloned()
            .ok_or(BrowserError::StaleRef { reference: target })
    }
}

#[async_trait::async_trait]
impl Browser for FakeBrowser {
    async fn navigate(&self, url: &str) -> Result<PageInfo, BrowserError> {
        let mut state = self.state.lock().unwrap();
        self.go(&mut state, url)
    }

    async fn back(&self) -> Result<PageInfo, BrowserError> {
        Err(BrowserError::NoDialog)
    }

    async fn snapshot(&self) -> Result<Snapshot, BrowserError> {
        let mut state = self.state.lock().unwrap();
        // Refs stay the same for the same element: page elements count from
        // 1, revealed ones from 1001 (from 2001 once rendered anew, ...).
        let page = self.pages.get(&state.current).cloned().unwrap_or_default();
        let numbered = page.into_iter().enumerate().map(|(n, e)| (n + 1, e));
        let revealed = state
            .revealed
            .clone()
            .into_iter()
            .enumerate()
            .map(|(n, e)| (n + 1001 + 1000 * state.renders as usize, e));
        let elements: Vec<(usize, FakeElement)> = numbered
            .chain(revealed)
            .filter(|(_, e)| !state.hidden.contains(&e.info.name))
            .filter(|(_, e)| e.only_in.as_ref().is_none_or(|m| *m == state.mode))
            .collect();
        state.handed_out.clear();
        let mut infos = Vec::new();
        let mut lines = Vec::new();
        for (n, mut element) in elements {
            let reference = Ref::new(u32::try_from(n).unwrap());
            element.info.reference = reference;
            lines.push(
                OutlineLine::new(0, element.info.role.as_str())
                    .name(element.info.name.as_str())
                    .reference(reference),
            );
            if element.info.role == "checkbox"
                && let Some(field) = &element.info.field_name
                && state.toggled.contains(field)
            {
                element.info.checked = Some(!element.info.checked.unwrap_or(false));
            }
            if let Some(message) = element
                .info
                .field_name
                .as_ref()
                .and_then(|field| state.refused.get(field))
            {
                lines.push(OutlineLine::new(0, "text").value(message.as_str()));
            }
            infos.push(element.info.clone());
            state.handed_out.insert(reference.number(), element);
        }
        Ok(Snapshot {
            url: state.current.clone(),
            title: String::new(),
            lines,
            elements: infos,
            omitted_lines: 0,
        })
    }

    async fn click(&self, target: Ref) -> Result<(), BrowserError> {
        let mut state = self.state.lock().unwrap();
        let element = Self::element(&state, target)?;
        state.log.push(format!("click {}", element.info.name));
        if element.info.role == "checkbox"
            && let Some(field) = &element.info.field_name
            && !state.toggled.remove(field)
        {
            state.toggled.insert(field.clone());
        }
        if !matches!(
            element.effect,
            Effect::NumbersOnly(_) | Effect::AtLeastOne(_)
        ) {
            for line in &element.sends {
                Self::send(&mut state, line);
            }
        }
        match element.effect {
            Effect::Nothing | Effect::OpenOnDoubleClick(_) => Ok(()),
            Effect::Toggle(names) => {
                for name in names {
                    if !state.hidden.remove(&name) {
                        state.hidden.insert(name);
                    }
                }
                Ok(())
            }
            Effect::Navigate(url) => self.go(&mut state, &url).map(|_| ()),
            Effect::Mode(mode) => {
                state.mode = mode;
                Ok(())
            }
            Effect::NavigateInMode(url, mode) => {
                state.mode = mode;
                self.go(&mut state, &url).map(|_| ())
            }
            Effect::Reveal(more) => {
                state.revealed.extend(more);
                Ok(())
            }
            Effect::Anchor(url, more) => {
                state.current = url;
                state.revealed.extend(more);
                Ok(())
            }
            Effect::Rerender => {
                state.revealed.clear();
                Ok(())
            }
            Effect::NumbersOnly(fields) => {
                let state = &mut *state;
                let names: HashMap<String, String> = state
                    .handed_out
                    .values()
                    .filter_map(|e| Some((e.info.field_name.clone()?, e.info.name.clone())))
                    .collect();
                state.refused = fields
                    .into_iter()
                    .filter(|field| {
                        state
                            .values
                            .get(field)
                            .is_some_and(|v| !v.is_empty() && v.parse::<f64>().is_err())
                    })
                    .map(|field| {
                        let label = names.get(&field).cloned().unwrap_or_default();
                        (field, format!("{label} must be a number"))
                    })
                    .collect();
                if state.refused.is_empty() {
                    for line in &element.sends {
                        Self::send(state, line);
                    }
                }
                Ok(())
            }
            Effect::AtLeastOne(boxes) => {
                let state = &mut *state;
                let checked = state.handed_out.values().any(|e| {
                    e.info
                        .field_name
                        .as_ref()
                        .is_some_and(|f| boxes.contains(f) && state.toggled.contains(f))
                });
                state.refused.clear();
                if checked {
                    for line in &element.sends {
                        Self::send(state, line);
                    }
                } else if let Some(last) = boxes.last() {
                    state
                        .refused
                        .insert(last.clone(), "Choose at least one".to_owned());
                }
                Ok(())
            }
            Effect::Replace(anew) => {
                state.revealed = anew;
                state.renders += 1;
                state.handed_out.retain(|&n, _| n < 1001);
                Ok(())
            }
        }
    }

    async fn double_click(&self, target: Ref) -> Result<(), BrowserError> {
        let mut state = self.state.lock().unwrap();
        let element = Self::element(&state, target)?;
        state
            .log
            .push(format!("double-click {}", element.info.name));
        match element.effect {
            Effect::OpenOnDoubleClick(url) => self.go(&mut state, &url).map(|_| ()),
            _ => Ok(()),
        }
    }

    async fn context_click(&self, target: Ref) -> Result<(), BrowserError> {
        let mut state = self.state.lock().unwrap();
        let element = Self::element(&state, target)?;
        state.log.push(format!("context {}", element.info.name));
        state.revealed.extend(element.context);
        Ok(())
    }

    async fn take_requests(&self) -> Result<Vec<SentRequest>, BrowserError> {
        Ok(std::mem::take(&mut self.state.lock().unwrap().sent))
    }

    async fn type_text(&self, target: Ref, text: &str, submit: bool) -> Result<(), BrowserError> {
        let mut state = self.state.lock().unwrap();
        let element = Self::element(&state, target)?;
        let name = element.info.field_name.unwrap_or_default();
        state.log.push(format!(
            "type {name}={text}{}",
            if submit { " +submit" } else { "" }
        ));
        state.values.insert(name, text.to_owned());
        Ok(())
    }

    async fn select(&self, target: Ref, option: &str) -> Result<String, BrowserError> {
        let mut state = self.state.lock().unwrap();
        let element = Self::element(&state, target)?;
        let name = element.info.field_name.unwrap_or_default();
        state.log.push(format!("select {name}={option}"));
        Ok(option.to_owned())
    }

    /// Escape closes what clicks revealed in dialogs and popup menus.
    async fn press(&self, key: &str) -> Result<(), BrowserError> {
        let mut state = self.state.lock().unwrap();
        state.log.push(format!("press {key}"));
        if key == "Escape" {
            state.revealed.retain(|e| e.info.dialog.is_none());
        }
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
            url: state.current.clone(),
            title: String::new(),
        })
    }

    async fn screenshot(&self, _path: &Path) -> Result<(), BrowserError> {
        Ok(())
    }

    async fn handle_dialog(&self, _action: DialogAction) -> Result<String, BrowserError> {
        Err(BrowserError::NoDialog)
    }
}
