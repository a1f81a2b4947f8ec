//! A scripted in-memory site behind the [`Browser`] trait, for explorer tests.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;

use crate::browser::{
    Browser, BrowserError, DialogAction, ElementInfo, PageInfo, Ref, Scroll, Snapshot, Wait,
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
}

#[derive(Debug, Clone)]
pub(super) struct FakeElement {
    pub(super) info: ElementInfo,
    pub(super) effect: Effect,
}

pub(super) fn link(name: &str, href: &str) -> FakeElement {
    let mut info = ElementInfo::new(Ref::new(0), "link", name);
    info.href = Some(href.to_owned());
    FakeElement {
        info,
        effect: Effect::Navigate(href.to_owned()),
    }
}

pub(super) fn button(name: &str, effect: Effect) -> FakeElement {
    FakeElement {
        info: ElementInfo::new(Ref::new(0), "button", name),
        effect,
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
    /// What the last snapshot handed out: ref number → element.
    handed_out: HashMap<u32, FakeElement>,
    log: Vec<String>,
}

/// The fake browser: pages by URL, and a log of every action.
pub(super) struct FakeBrowser {
    pages: HashMap<String, Vec<FakeElement>>,
    state: Mutex<State>,
}

impl FakeBrowser {
    pub(super) fn new(pages: impl IntoIterator<Item = (&'static str, Vec<FakeElement>)>) -> Self {
        let pages = pages
            .into_iter()
            .map(|(url, elements)| (url.to_owned(), elements))
            .collect();
        Self {
            pages,
            state: Mutex::new(State::default()),
        }
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
        state.current = url.to_owned();
        state.revealed.clear();
        state.log.push(format!("open {url}"));
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
        let mut elements: Vec<FakeElement> =
            self.pages.get(&state.current).cloned().unwrap_or_default();
        elements.extend(state.revealed.iter().cloned());
        state.handed_out.clear();
        let mut infos = Vec::new();
        for (n, mut element) in elements.into_iter().enumerate() {
            let reference = Ref::new(u32::try_from(n).unwrap() + 1);
            element.info.reference = reference;
            infos.push(element.info.clone());
            state.handed_out.insert(reference.number(), element);
        }
        Ok(Snapshot {
            url: state.current.clone(),
            title: String::new(),
            lines: Vec::new(),
            elements: infos,
            omitted_lines: 0,
        })
    }

    async fn click(&self, target: Ref) -> Result<(), BrowserError> {
        let mut state = self.state.lock().unwrap();
        let element = Self::element(&state, target)?;
        state.log.push(format!("click {}", element.info.name));
        match element.effect {
            Effect::Nothing => Ok(()),
            Effect::Navigate(url) => self.go(&mut state, &url).map(|_| ()),
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
        }
    }

    async fn type_text(&self, target: Ref, text: &str, submit: bool) -> Result<(), BrowserError> {
        let mut state = self.state.lock().unwrap();
        let element = Self::element(&state, target)?;
        let name = element.info.field_name.unwrap_or_default();
        state.log.push(format!(
            "type {name}={text}{}",
            if submit { " +submit" } else { "" }
        ));
        Ok(())
    }

    async fn select(&self, target: Ref, option: &str) -> Result<String, BrowserError> {
        let mut state = self.state.lock().unwrap();
        let element = Self::element(&state, target)?;
        let name = element.info.field_name.unwrap_or_default();
        state.log.push(format!("select {name}={option}"));
        Ok(option.to_owned())
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
