//! The [`Browser`] actions of [`ChromeBrowser`].

use std::path::Path;

use ar_agent::browser::{
    Browser, BrowserError, DialogAction, PageInfo, Ref, Scroll, SentRequest, Snapshot, Wait,
};
use fantoccini::actions::{
    InputSource as _, KeyAction, KeyActions, MOUSE_BUTTON_LEFT, MOUSE_BUTTON_RIGHT, MouseActions,
    PointerAction,
};
use fantoccini::elements::Element;
use fantoccini::key::Key;
use serde_json::{Value, json};

use super::chrome::ChromeBrowser;
use super::keys::parse_chord;
use super::page_snapshot::{self, ELEMENT_KEY};
use super::scripts::{
    FIELD_VALUE_SCRIPT, FIND_OPTION_SCRIPT, FORCE_OPTION_SCRIPT, SCROLL_SCRIPT, SUBMIT_SCRIPT,
};

impl ChromeBrowser {
    fn element_arg(&self, reference: Ref) -> Result<(Element, Value), BrowserError> {
        let element = self.element(reference)?;
        let arg = json!({ ELEMENT_KEY: element.element_id().to_string() });
        Ok((element, arg))
    }

    async fn script_click(&self, reference: Ref, arg: Value) -> Result<(), BrowserError> {
        let script = "arguments[0].scrollIntoView({block: 'center'}); arguments[0].click();";
        self.run(
            "click",
            Some(reference),
            self.client.execute(script, vec![arg]),
        )
        .await
        .map(drop)
    }

    /// Moves the pointer onto the element and presses `button` `times` in a
    /// row (a double-click, a context click), as a person's mouse would;
    /// follows a tab the press opened.
    async fn press_pointer(
        &self,
        target: Ref,
        action: &str,
        button: u64,
        times: usize,
    ) -> Result<(), BrowserError> {
        let (element, _) = self.element_arg(target)?;
        let tabs = self
            .run("listing tabs", None, self.client.windows())
            .await?;
        let mut pointer =
            MouseActions::new("mouse".to_owned()).then(PointerAction::MoveToElement {
                element,
                duration: None,
                x: 0.0,
                y: 0.0,
            });
        for _ in 0..times {
            pointer = pointer
                .then(PointerAction::Down { button })
                .then(PointerAction::Up { button });
        }
        self.run(action, Some(target), self.client.perform_actions(pointer))
            .await?;
        self.follow_new_tab(&tabs).await
    }
}

#[async_trait::async_trait]
impl Browser for ChromeBrowser {
    async fn navigate(&self, url: &str) -> Result<PageInfo, BrowserError> {
        if url != "about:blank" && url::Url::parse(url).is_err() {
            return Err(BrowserError::NavigationFailed {
                url: url.to_owned(),
                reason: "not an absolute URL (include the scheme, e.g. https://)".to_owned(),
            });
        }
        // Forget earlier failures so only this navigation's count.
        self.drain_network().await?;
        self.network.lock().await.take_document_failures();
        match self.run("navigation", None, self.client.goto(url)).await {
            Ok(()) => {
                let page = self.page().await?;
                self.drain_network().await?;
                let failures = self.network.lock().await.take_document_failures();
                match failures.into_iter().find(|(failed, _)| *failed == page.url) {
                    Some((_, reason)) => Err(BrowserError::NavigationFailed {
                        url: url.to_owned(),
                        reason,
                    }),
                    None => Ok(page),
                }
            }
            Err(BrowserError::Driver { reason, .. }) => Err(BrowserError::NavigationFailed {
                url: url.to_owned(),
                reason: reason.trim_start_matches("unknown error: ").to_owned(),
            }),
            Err(other) => Err(other),
        }
    }

    async fn back(&self) -> Result<PageInfo, BrowserError> {
        self.run("going back", None, self.client.back()).await?;
        self.page().await
    }

    async fn snapshot(&self) -> Result<Snapshot, BrowserError> {
        // Keep the network log drained so it never piles up in chromedriver.
        self.drain_network().await?;
        let script = || {
            self.client
                .execute(page_snapshot::SCRIPT, page_snapshot::script_args())
        };
        let result = match self.run("the snapshot", None, script()).await {
            // The page was navigating (its script context went away mid-call):
            // let the new document settle and try once more.
            Err(BrowserError::Driver { .. }) => {
                tokio::time::sleep(std::time::Duration::from_millis(250)).await;
                self.run("the snapshot", None, script()).await?
            }
            other => other?,
        };
        let mut table = self.refs.lock().map_err(|_| BrowserError::Driver {
            action: "the snapshot".to_owned(),
            reason: "the ref table was poisoned by a panic".to_owned(),
        })?;
        page_snapshot::decode(&result, |id| self.assign_ref(&mut table, id)).map_err(|reason| {
            BrowserError::Driver {
                action: "the snapshot".to_owned(),
                reason,
            }
        })
    }

    async fn click(&self, target: Ref) -> Result<(), BrowserError> {
        let (element, arg) = self.element_arg(target)?;
        let tabs = self
            .run("listing tabs", None, self.client.windows())
            .await?;
        match self.run("click", Some(target), element.click()).await {
            // Covered by an overlay, zero-sized, or off in a transformed box:
            // a script click still runs the page's handlers.
            Err(BrowserError::NotInteractable { .. }) => self.script_click(target, arg).await?,
            other => other?,
        }
        self.follow_new_tab(&tabs).await
    }

    async fn double_click(&self, target: Ref) -> Result<(), BrowserError> {
        self.press_pointer(target, "double-click", MOUSE_BUTTON_LEFT, 2)
            .await
    }

    async fn context_click(&self, target: Ref) -> Result<(), BrowserError> {
        self.press_pointer(target, "context click", MOUSE_BUTTON_RIGHT, 1)
            .await
    }

    async fn type_text(&self, target: Ref, text: &str, submit: bool) -> Result<(), BrowserError> {
        let (element, arg) = self.element_arg(target)?;
        // Select all, then type over it (or delete it): how a person replaces
        // what a field holds.
        let select_all = format!("{}a{}", char::from(Key::Control), char::from(Key::Null));
        if text.is_empty() {
            // WebDriver's clear alone does not tell a framework that keeps
            // the field's value from input events (React): the keys do.
            let keys = format!("{select_all}{}", char::from(Key::Backspace));
            self.run("typing", Some(target), element.send_keys(&keys))
                .await?;
        } else {
            self.run("typing", Some(target), element.clear())
                .await
                .map_err(|error| match error {
                    BrowserError::NotInteractable { reference, reason } => {
                        BrowserError::NotInteractable {
                            reference,
                            reason: format!("it is not an editable field ({reason})"),
                        }
                    }
                    other => other,
                })?;
            self.run("typing", Some(target), element.send_keys(text))
                .await?;
            // Such a framework may have put the old value back when the
            // clear blurred the field, and the keys went after it: then the
            // text is typed over everything.
            let now = self
                .run(
                    "typing",
                    Some(target),
                    self.client.execute(FIELD_VALUE_SCRIPT, vec![arg.clone()]),
                )
                .await?;
            if now
                .as_str()
                .is_some_and(|value| value != text && value.ends_with(text))
            {
                let keys = format!("{select_all}{text}");
                self.run("typing", Some(target), element.send_keys(&keys))
                    .await?;
            }
        }
        if submit {
            let how = self
                .run(
                    "submitting",
                    Some(target),
                    self.client.execute(SUBMIT_SCRIPT, vec![arg]),
                )
                .await?;
            if how.as_str() == Some("enter") {
                let enter = char::from(Key::Enter).to_string();
                self.run("submitting", Some(target), element.send_keys(&enter))
                    .await?;
            }
        }
        Ok(())
    }

    async fn select(&self, target: Ref, option: &str) -> Result<String, BrowserError> {
        let (_, arg) = self.element_arg(target)?;
        let found = self
            .run(
                "select",
                Some(target),
                self.client
                    .execute(FIND_OPTION_SCRIPT, vec![arg.clone(), json!(option)]),
            )
            .await?;
        match found.get("error").and_then(Value::as_str) {
            Some("not_select") => {
                return Err(BrowserError::NotInteractable {
                    reference: target,
                    reason: "it is not a <select>; click it, then click one of its options"
                        .to_owned(),
                });
            }
            Some("disabled") => {
                return Err(BrowserError::NotInteractable {
                    reference: target,
                    reason: format!("option {option:?} is disabled"),
                });
            }
            Some(_) => {
                let options: Vec<String> = found
                    .get("options")
                    .and_then(Value::as_array)
                    .map(|o| {
                        o.iter()
                            .filter_map(Value::as_str)
                            .map(|s| format!("{s:?}"))
                            .collect()
                    })
                    .unwrap_or_default();
                return Err(BrowserError::NotFound {
                    what: format!("option {option:?} in {target}"),
                    hint: format!("its options are {}", options.join(", ")),
                });
            }
            None => {}
        }
        let label = found
            .get("label")
            .and_then(Value::as_str)
            .unwrap_or(option)
            .to_owned();
        let option_arg = found.get("option").cloned().unwrap_or(Value::Null);
        let option_id = option_arg
            .get(ELEMENT_KEY)
            .and_then(Value::as_str)
            .unwrap_or_default();
        let option_element =
            Element::from_element_id(self.client.clone(), option_id.to_owned().into());
        if self
            .run("select", Some(target), option_element.click())
            .await
            .is_err()
        {
            self.run(
                "select",
                Some(target),
                self.client
                    .execute(FORCE_OPTION_SCRIPT, vec![arg, option_arg]),
            )
            .await?;
        }
        Ok(label)
    }

    async fn press(&self, key: &str) -> Result<(), BrowserError> {
        let chord = parse_chord(key)?;
        let mut actions = KeyActions::new("keyboard".to_owned());
        for &code in &chord {
            actions = actions.then(KeyAction::Down { value: code });
        }
        for &code in chord.iter().rev() {
            actions = actions.then(KeyAction::Up { value: code });
        }
        self.run("pressing a key", None, self.client.perform_actions(actions))
            .await
    }

    async fn scroll(&self, scroll: Scroll) -> Result<(), BrowserError> {
        let (kind, x, y) = match scroll {
            Scroll::IntoView(target) => {
                let (_, arg) = self.element_arg(target)?;
                let script = "arguments[0].scrollIntoView({block: 'center'});";
                return self
                    .run(
                        "scrolling",
                        Some(target),
                        self.client.execute(script, vec![arg]),
                    )
                    .await
                    .map(drop);
            }
            Scroll::Down => ("down", 0, 0),
            Scroll::Up => ("up", 0, 0),
            Scroll::Top => ("top", 0, 0),
            Scroll::Bottom => ("bottom", 0, 0),
            Scroll::By { x, y } => ("by", x, y),
        };
        self.run(
            "scrolling",
            None,
            self.client
                .execute(SCROLL_SCRIPT, vec![json!(kind), json!(x), json!(y)]),
        )
        .await
        .map(drop)
    }

    async fn wait(&self, wait: Wait) -> Result<(), BrowserError> {
        match wait {
            Wait::Time(duration) => {
                tokio::time::sleep(duration).await;
                Ok(())
            }
            Wait::NetworkIdle { quiet, timeout } => self.wait_network_idle(quiet, timeout).await,
        }
    }

    async fn page(&self) -> Result<PageInfo, BrowserError> {
        let url = self
            .run("reading the URL", None, self.client.current_url())
            .await?;
        let title = self
            .run("reading the title", None, self.client.title())
            .await?;
        Ok(PageInfo {
            url: url.to_string(),
            title,
        })
    }

    async fn take_requests(&self) -> Result<Vec<SentRequest>, BrowserError> {
        self.drain_network().await?;
        Ok(self.network.lock().await.take_sent())
    }

    async fn screenshot(&self, path: &Path) -> Result<(), BrowserError> {
        let png = self
            .run("a screenshot", None, self.client.screenshot())
            .await?;
        tokio::fs::write(path, png)
            .await
            .map_err(|source| BrowserError::Io {
                path: path.display().to_string(),
                source,
            })
    }

    async fn handle_dialog(&self, action: DialogAction) -> Result<String, BrowserError> {
        let text = self
            .run("reading the dialog", None, self.client.get_alert_text())
            .await?;
        match action {
            DialogAction::Accept { prompt_text } => {
                if let Some(prompt) = prompt_text {
                    let sent = self.client.send_alert_text(&prompt);
                    match self.run("answering the prompt", None, sent).await {
                        // An alert/confirm has no text field: accepting still works.
                        Err(BrowserError::Driver { .. }) | Ok(()) => {}
                        Err(other) => return Err(other),
                    }
                }
                self.run("accepting the dialog", None, self.client.accept_alert())
                    .await?;
            }
            DialogAction::Dismiss => {
                self.run("dismissing the dialog", None, self.client.dismiss_alert())
                    .await?;
            }
        }
        Ok(text)
    }
}
