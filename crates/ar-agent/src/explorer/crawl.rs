//! The exploration loop: a breadth-first walk over pages, and on each page a
//! queue of actions (clicks, form submissions) planned from its snapshot and
//! extended with whatever those actions reveal.
//!
//! Elements are re-located before every action (by role, name and
//! occurrence, or a form by its field names), because single-page apps
//! re-render and old refs go stale.

use std::collections::{HashMap, HashSet, VecDeque};
use std::time::Duration;

use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use url::Url;

use super::fill::{FieldAction, fill};
use super::policy::{followable, is_destructive, is_in_page_link, site_of, url_shape};
use super::{ExplorerConfig, ExplorerError, ExplorerEvent, ExplorerReport, StopReason};
use crate::browser::{Browser, BrowserError, DialogAction, ElementInfo, Snapshot, Wait};

/// Roles that do something when clicked and are not form fields.
const CLICKABLE_ROLES: &[&str] = &["button", "tab", "menuitem", "clickable", "switch"];

/// After each action: network quiet for 300 ms, at most 5 s.
const SETTLE: Wait = Wait::NetworkIdle {
    quiet: Duration::from_millis(300),
    timeout: Duration::from_secs(5),
};

/// Explores from `config.start` until a budget runs out, nothing is left, or
/// `cancel` fires. Progress goes to `on_event`. Only a browser that stopped
/// working, or an unusable start URL, is an error; failed actions are
/// counted and skipped.
pub async fn explore(
    browser: &dyn Browser,
    config: &ExplorerConfig,
    cancel: &CancellationToken,
    on_event: &mut (dyn FnMut(ExplorerEvent) + Send),
) -> Result<ExplorerReport, ExplorerError> {
    let start = Url::parse(&config.start)
        .ok()
        .filter(|u| matches!(u.scheme(), "http" | "https") && u.host_str().is_some())
        .ok_or_else(|| ExplorerError::InvalidStart {
            start: config.start.clone(),
        })?;
    let site = site_of(start.host_str().unwrap_or_default());
    let mut crawl = Crawl {
        browser,
        config,
        cancel,
        on_event,
        site,
        deadline: Instant::now() + config.time_budget,
        frontier: VecDeque::from([start.clone()]),
        queued: HashSet::from([start.to_string()]),
        shapes: HashMap::new(),
        done: HashSet::new(),
        report: ExplorerReport {
            pages_visited: 0,
            actions: 0,
            forms_submitted: 0,
            skipped_destructive: Vec::new(),
            failures: 0,
            stopped: StopReason::Exhausted,
        },
    };
    crawl.report.stopped = crawl.run().await?;
    Ok(crawl.report)
}

/// One planned action, described so it can be found again after a re-render.
#[derive(Debug, Clone)]
enum Planned {
    Click {
        role: String,
        name: String,
        occurrence: usize,
    },
    Form {
        fingerprint: String,
        label: String,
    },
}

struct Crawl<'a> {
    browser: &'a dyn Browser,
    config: &'a ExplorerConfig,
    cancel: &'a CancellationToken,
    on_event: &'a mut (dyn FnMut(ExplorerEvent) + Send),
    site: String,
    deadline: Instant,
    frontier: VecDeque<Url>,
    queued: HashSet<String>,
    shapes: HashMap<String, usize>,
    /// Action keys already planned (`shape|role|name`), so each is done once per page shape.
    done: HashSet<String>,
    report: ExplorerReport,
}

impl Crawl<'_> {
    async fn run(&mut self) -> Result<StopReason, ExplorerError> {
        while let Some(url) = self.frontier.pop_front() {
            if let Some(stop) = self.should_stop() {
                return Ok(stop);
            }
            if self.report.pages_visited >= self.config.max_pages {
                return Ok(StopReason::PageBudget);
            }
            let shape = url_shape(&url);
            let seen = self.shapes.entry(shape.clone()).or_insert(0);
            if *seen >= self.config.per_shape {
                continue;
            }
            *seen += 1;
            if !self.load(&url).await? {
                continue;
            }
            self.report.pages_visited += 1;
            (self.on_event)(ExplorerEvent::Visit {
                url: url.to_string(),
            });
            if let Some(stop) = self.explore_page(&url, &shape).await? {
                return Ok(stop);
            }
        }
        Ok(StopReason::Exhausted)
    }

    fn should_stop(&self) -> Option<StopReason> {
        if self.cancel.is_cancelled() {
            Some(StopReason::Cancelled)
        } else if Instant::now() >= self.deadline {
            Some(StopReason::TimeBudget)
        } else if self.report.actions >= self.config.max_actions {
            Some(StopReason::ActionBudget)
        } else {
            None
        }
    }

    /// Navigates and lets the page settle; `false` when the page could not be loaded.
    async fn load(&mut self, url: &Url) -> Result<bool, ExplorerError> {
        match self.browser.navigate(url.as_str()).await {
            Ok(_) => {
                self.settle().await?;
                Ok(true)
            }
            Err(error) => {
                self.failed(format!("open {url}"), error)?;
                Ok(false)
            }
        }
    }

    async fn explore_page(
        &mut self,
        url: &Url,
        shape: &str,
    ) -> Result<Option<StopReason>, ExplorerError> {
        let Some(snapshot) = self.snapshot().await? else {
            return Ok(None);
        };
        let mut plan: VecDeque<Planned> = self.absorb(&snapshot, url, shape).into();
        while let Some(action) = plan.pop_front() {
            if let Some(stop) = self.should_stop() {
                return Ok(Some(stop));
            }
            let Some(current) = self.snapshot().await? else {
                continue;
            };
            let acted = match &action {
                Planned::Click {
                    role,
                    name,
                    occurrence,
                } => self.click(&current, role, name, *occurrence).await?,
                Planned::Form { fingerprint, label } => {
                    self.submit(&current, fingerprint, label).await?
                }
            };
            if !acted {
                continue;
            }
            self.report.actions += 1;
            self.settle().await?;
            let now = match self.browser.page().await {
                Ok(page) => page.url,
                Err(error) => {
                    self.failed("read the current page".to_owned(), error)?;
                    continue;
                }
            };
            if is_same_page(&now, url) {
                // Same page: what the action revealed (a menu's items, a tab's
                // form) is done next, while it is still open.
                if let Some(after) = self.snapshot().await? {
                    for revealed in self.absorb(&after, url, shape).into_iter().rev() {
                        plan.push_front(revealed);
                    }
                }
            } else {
                // The action navigated away: remember the new page, come back for the rest.
                if let Some(after) = self.snapshot().await? {
                    self.enqueue_links(&after);
                }
                self.enqueue(&now);
                if !self.load(url).await? {
                    return Ok(None);
                }
            }
        }
        Ok(None)
    }

    /// Queues the snapshot's links and plans its not-yet-done actions.
    ///
    /// A click is done once per role and name across the whole site (the
    /// "Account" menu in every page's header is opened once); a form once per
    /// page shape (the review form of each kind of page).
    fn absorb(&mut self, snapshot: &Snapshot, url: &Url, shape: &str) -> Vec<Planned> {
        let mut plan = Vec::new();
        self.enqueue_links(snapshot);
        let mut occurrences: HashMap<(String, String), usize> = HashMap::new();
        let mut forms: Vec<u32> = Vec::new();
        for element in &snapshot.elements {
            if let Some(form) = element.form {
                if !forms.contains(&form) {
                    forms.push(form);
                }
                continue;
            }
            let in_page = element
                .href
                .as_deref()
                .is_some_and(|href| is_in_page_link(href, url));
            if element.disabled || !(in_page || CLICKABLE_ROLES.contains(&element.role.as_str())) {
                continue;
            }
            let count = occurrences
                .entry((element.role.clone(), element.name.clone()))
                .or_insert(0);
            let occurrence = *count;
            *count += 1;
            // Repeated controls (one "Add to cart" per row) are tried once.
            if occurrence > 0 {
                continue;
            }
            if !self.allowed(
                &element.name,
                element.href.as_deref(),
                &format!("{}|{}", element.role, element.name),
            ) {
                continue;
            }
            plan.push(Planned::Click {
                role: element.role.clone(),
                name: element.name.clone(),
                occurrence,
            });
        }
        for form in forms {
            let fields: Vec<&ElementInfo> = snapshot
                .elements
                .iter()
                .filter(|e| e.form == Some(form))
                .collect();
            let fingerprint = form_fingerprint(&fields);
            let label =
                submit_button(&fields).map_or_else(|| fingerprint.clone(), |b| b.name.clone());
            if !self.allowed(&label, None, &format!("{shape}|form|{fingerprint}")) {
                continue;
            }
            plan.push(Planned::Form { fingerprint, label });
        }
        plan
    }

    /// Whether an action may be planned (not done before on this page shape,
    /// and not destructive unless allowed). Records the decision.
    fn allowed(&mut self, name: &str, href: Option<&str>, key: &str) -> bool {
        if !self.done.insert(key.to_owned()) {
            return false;
        }
        if is_destructive(name, href) && !self.config.allow_destructive {
            self.report.skipped_destructive.push(name.to_owned());
            (self.on_event)(ExplorerEvent::SkippedDestructive {
                name: name.to_owned(),
            });
            return false;
        }
        true
    }

    fn enqueue_links(&mut self, snapshot: &Snapshot) {
        for element in &snapshot.elements {
            let Some(href) = element.href.as_deref() else {
                continue;
            };
            if is_destructive(&element.name, Some(href)) && !self.config.allow_destructive {
                continue;
            }
            self.enqueue(href);
        }
    }

    fn enqueue(&mut self, href: &str) {
        if let Some(url) = followable(href, &self.site)
            && self.queued.insert(url.to_string())
        {
            self.frontier.push_back(url);
        }
    }

    async fn click(
        &mut self,
        snapshot: &Snapshot,
        role: &str,
        name: &str,
        occurrence: usize,
    ) -> Result<bool, ExplorerError> {
        let Some(element) = snapshot
            .elements
            .iter()
            .filter(|e| e.form.is_none() && e.role == role && e.name == name)
            .nth(occurrence)
        else {
            return Ok(false);
        };
        match self.browser.click(element.reference).await {
            Ok(()) => {
                (self.on_event)(ExplorerEvent::Click {
                    role: role.to_owned(),
                    name: name.to_owned(),
                });
                Ok(true)
            }
            Err(error) => {
                self.failed(format!("click {role} \"{name}\""), error)?;
                Ok(false)
            }
        }
    }

    async fn submit(
        &mut self,
        snapshot: &Snapshot,
        fingerprint: &str,
        label: &str,
    ) -> Result<bool, ExplorerError> {
        let mut forms: Vec<u32> = snapshot.elements.iter().filter_map(|e| e.form).collect();
        forms.dedup();
        let Some(fields) = forms
            .into_iter()
            .map(|f| {
                snapshot
                    .elements
                    .iter()
                    .filter(|e| e.form == Some(f))
                    .collect::<Vec<_>>()
            })
            .find(|fields| form_fingerprint(fields) == fingerprint)
        else {
            return Ok(false);
        };
        let upload = self
            .config
            .upload_file
            .as_ref()
            .map(|p| p.display().to_string());
        let mut filled = 0;
        let mut last_text = None;
        for field in fields.iter().filter(|e| !is_button(e)) {
            let result = match fill(field, upload.as_deref()) {
                FieldAction::Type(text) => {
                    last_text = Some((field.reference, text.clone()));
                    self.browser.type_text(field.reference, &text, false).await
                }
                FieldAction::Select(value) => self
                    .browser
                    .select(field.reference, &value)
                    .await
                    .map(|_| ()),
                FieldAction::Check => self.browser.click(field.reference).await,
                FieldAction::Leave => continue,
            };
            match result {
                Ok(()) => filled += 1,
                Err(error) => {
                    self.failed(format!("fill \"{}\" in \"{label}\"", field.name), error)?
                }
            }
        }
        let submitted = match (submit_button(&fields), last_text) {
            (Some(button), _) => self.browser.click(button.reference).await,
            (None, Some((field, text))) => self.browser.type_text(field, &text, true).await,
            (None, None) => return Ok(false),
        };
        match submitted {
            Ok(()) => {
                self.report.forms_submitted += 1;
                (self.on_event)(ExplorerEvent::Submit {
                    form: label.to_owned(),
                    fields: filled,
                });
                Ok(true)
            }
            Err(error) => {
                self.failed(format!("submit \"{label}\""), error)?;
                Ok(false)
            }
        }
    }

    async fn snapshot(&mut self) -> Result<Option<Snapshot>, ExplorerError> {
        match self.browser.snapshot().await {
            Ok(snapshot) => Ok(Some(snapshot)),
            Err(BrowserError::DialogOpen { .. }) => {
                self.dismiss_dialog().await?;
                match self.browser.snapshot().await {
                    Ok(snapshot) => Ok(Some(snapshot)),
                    Err(error) => self
                        .failed("take a snapshot".to_owned(), error)
                        .map(|()| None),
                }
            }
            Err(error) => self
                .failed("take a snapshot".to_owned(), error)
                .map(|()| None),
        }
    }

    /// Waits for the network to go quiet; a page that never does (polling,
    /// a stuck request) is not an error, and dialogs are dismissed.
    async fn settle(&mut self) -> Result<(), ExplorerError> {
        match self.browser.wait(SETTLE).await {
            Ok(()) | Err(BrowserError::Timeout { .. }) => Ok(()),
            Err(BrowserError::DialogOpen { .. }) => self.dismiss_dialog().await,
            Err(error) => self.failed("wait for the page".to_owned(), error),
        }
    }

    /// Dismisses a dialog: Cancel is the safe answer to "Delete this?".
    async fn dismiss_dialog(&mut self) -> Result<(), ExplorerError> {
        match self.browser.handle_dialog(DialogAction::Dismiss).await {
            Ok(_) => Ok(()),
            Err(error) => self.failed("dismiss a dialog".to_owned(), error),
        }
    }

    /// Counts a failed action; only a browser that is gone ends the exploration.
    fn failed(&mut self, action: String, error: BrowserError) -> Result<(), ExplorerError> {
        if error.is_fatal() {
            return Err(error.into());
        }
        self.report.failures += 1;
        (self.on_event)(ExplorerEvent::Failed {
            action,
            reason: error.to_string(),
        });
        Ok(())
    }
}

/// Whether the browser is still on `page`: an in-page anchor (`#shipping`,
/// set by a tab) does not count as leaving it.
fn is_same_page(now: &str, page: &Url) -> bool {
    now == page.as_str() || is_in_page_link(now, page)
}

fn is_button(element: &ElementInfo) -> bool {
    element.role == "button"
        || matches!(
            element.input_type.as_deref(),
            Some("submit" | "button" | "image" | "reset")
        )
}

/// The form's submit control: the last button in it (usually "Save", "Send").
fn submit_button<'a>(fields: &[&'a ElementInfo]) -> Option<&'a ElementInfo> {
    fields
        .iter()
        .rev()
        .find(|e| is_button(e) && !e.disabled && e.input_type.as_deref() != Some("reset"))
        .copied()
}

/// A form's identity across re-renders: its field names and button names.
fn form_fingerprint(fields: &[&ElementInfo]) -> String {
    fields
        .iter()
        .map(|e| {
            e.field_name
                .clone()
                .unwrap_or_else(|| format!("{}:{}", e.role, e.name))
        })
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::super::fake::{Effect, FakeBrowser, button, field, link, submit};
    use super::*;

    async fn run(
        browser: &FakeBrowser,
        config: &ExplorerConfig,
    ) -> (ExplorerReport, Vec<ExplorerEvent>) {
        let mut events = Vec::new();
        let report = explore(browser, config, &CancellationToken::new(), &mut |e| {
            events.push(e)
        })
        .await
        .unwrap();
        (report, events)
    }

    fn opened(browser: &FakeBrowser) -> Vec<String> {
        let mut pages: Vec<String> = browser
            .log()
            .into_iter()
            .filter_map(|l| l.strip_prefix("open ").map(str::to_owned))
            .collect();
        pages.dedup();
        pages
    }

    #[tokio::test]
    async fn follows_same_site_links_and_caps_each_url_shape() {
        let mut home = vec![
            link("About", "https://shop.test/about"),
            link("Elsewhere", "https://other.test/"),
            link("Docs", "https://api.shop.test/docs"),
        ];
        for n in 1..=6 {
            home.push(link(
                &format!("Product {n}"),
                &format!("https://shop.test/products/{n}"),
            ));
        }
        let mut pages = vec![
            ("https://shop.test/", home),
            ("https://shop.test/about", vec![]),
            ("https://api.shop.test/docs", vec![]),
            ("https://other.test/", vec![]),
        ];
        for url in [
            "https://shop.test/products/1",
            "https://shop.test/products/2",
            "https://shop.test/products/3",
        ] {
            pages.push((url, vec![]));
        }
        let browser = FakeBrowser::new(pages);
        let mut config = ExplorerConfig::new("https://shop.test/");
        config.per_shape = 2;
        let (report, _) = run(&browser, &config).await;
        assert_eq!(
            opened(&browser),
            [
                "https://shop.test/",
                "https://shop.test/about",
                "https://api.shop.test/docs",
                "https://shop.test/products/1",
                "https://shop.test/products/2"
            ]
        );
        assert_eq!(report.pages_visited, 5);
        assert_eq!(report.stopped, StopReason::Exhausted);
    }

    #[tokio::test]
    async fn destructive_actions_are_skipped_unless_allowed() {
        let page = vec![
            button("Show details", Effect::Nothing),
            button("Delete account", Effect::Nothing),
            link("Sign out", "https://shop.test/logout"),
        ];
        let pages = || {
            vec![
                ("https://shop.test/", page.clone()),
                ("https://shop.test/logout", vec![]),
            ]
        };
        let browser = FakeBrowser::new(pages());
        let (report, events) = run(&browser, &ExplorerConfig::new("https://shop.test/")).await;
        let log = browser.log();
        assert!(log.contains(&"click Show details".to_owned()));
        assert!(
            !log.iter()
                .any(|l| l.contains("Delete account") || l.contains("logout")),
            "{log:?}"
        );
        assert_eq!(report.skipped_destructive, ["Delete account"]);
        assert!(events.contains(&ExplorerEvent::SkippedDestructive {
            name: "Delete account".into()
        }));

        let browser = FakeBrowser::new(pages());
        let mut config = ExplorerConfig::new("https://shop.test/");
        config.allow_destructive = true;
        run(&browser, &config).await;
        assert!(browser.log().contains(&"click Delete account".to_owned()));
        assert!(opened(&browser).contains(&"https://shop.test/logout".to_owned()));
    }

    #[tokio::test]
    async fn forms_are_filled_by_field_type_and_submitted() {
        let login = vec![
            field(0, "textbox", "email", "email", "Email"),
            field(0, "textbox", "password", "password", "Password"),
            field(0, "checkbox", "checkbox", "remember", "Keep me signed in"),
            submit(0, "Sign in"),
        ];
        let browser = FakeBrowser::new([("https://shop.test/login", login)]);
        let (report, events) = run(&browser, &ExplorerConfig::new("https://shop.test/login")).await;
        let log = browser.log();
        let typed: Vec<&String> = log
            .iter()
            .filter(|l| l.starts_with("type ") || l.starts_with("click "))
            .collect();
        assert_eq!(
            typed,
            [
                "type email=explorer@example.com",
                "type password=Explorer-pass-1",
                "click Sign in"
            ]
        );
        assert_eq!(report.forms_submitted, 1);
        assert!(events.contains(&ExplorerEvent::Submit {
            form: "Sign in".into(),
            fields: 2
        }));
    }

    #[tokio::test]
    async fn what_an_action_reveals_is_explored_too() {
        let menu = button(
            "Open menu",
            Effect::Reveal(vec![
                link("Secret page", "https://shop.test/secret"),
                button("Load more", Effect::Nothing),
            ]),
        );
        let browser = FakeBrowser::new([
            ("https://shop.test/", vec![menu]),
            ("https://shop.test/secret", vec![]),
        ]);
        let (report, _) = run(&browser, &ExplorerConfig::new("https://shop.test/")).await;
        assert!(browser.log().contains(&"click Load more".to_owned()));
        assert!(opened(&browser).contains(&"https://shop.test/secret".to_owned()));
        assert_eq!(report.actions, 2);
    }

    #[tokio::test]
    async fn a_button_that_navigates_away_is_followed_by_a_return_to_the_page() {
        let page = vec![
            button(
                "Go to cart",
                Effect::Navigate("https://shop.test/cart".into()),
            ),
            button("Help", Effect::Nothing),
        ];
        let browser = FakeBrowser::new([
            ("https://shop.test/", page),
            ("https://shop.test/cart", vec![]),
        ]);
        run(&browser, &ExplorerConfig::new("https://shop.test/")).await;
        let log = browser.log();
        let help = log
            .iter()
            .position(|l| l == "click Help")
            .expect("Help clicked after coming back");
        let back = log
            .iter()
            .rposition(|l| l == "open https://shop.test/")
            .unwrap();
        assert!(back < help && back > 0, "{log:?}");
        assert!(
            log.iter()
                .filter(|l| *l == "open https://shop.test/cart")
                .count()
                >= 1
        );
    }

    #[tokio::test]
    async fn budgets_and_cancellation_stop_the_walk() {
        let pages = || {
            vec![
                ("https://shop.test/", vec![link("A", "https://shop.test/a")]),
                ("https://shop.test/a", vec![]),
            ]
        };
        let browser = FakeBrowser::new(pages());
        let mut config = ExplorerConfig::new("https://shop.test/");
        config.max_pages = 1;
        let (report, _) = run(&browser, &config).await;
        assert_eq!(
            (report.pages_visited, report.stopped),
            (1, StopReason::PageBudget)
        );

        let browser = FakeBrowser::new(pages());
        let cancel = CancellationToken::new();
        cancel.cancel();
        let report = explore(
            &browser,
            &ExplorerConfig::new("https://shop.test/"),
            &cancel,
            &mut |_| {},
        )
        .await
        .unwrap();
        assert_eq!(
            (report.pages_visited, report.stopped),
            (0, StopReason::Cancelled)
        );
        assert!(browser.log().is_empty());
    }

    #[tokio::test]
    async fn unreachable_pages_are_counted_and_a_bad_start_is_an_error() {
        let browser = FakeBrowser::new([(
            "https://shop.test/",
            vec![link("Gone", "https://shop.test/gone")],
        )]);
        let (report, events) = run(&browser, &ExplorerConfig::new("https://shop.test/")).await;
        assert_eq!(report.failures, 1);
        assert!(
            matches!(
                &events[..],
                [ExplorerEvent::Visit { .. }, ExplorerEvent::Failed { .. }]
            ),
            "{events:?}"
        );

        let error = explore(
            &browser,
            &ExplorerConfig::new("shop.test"),
            &CancellationToken::new(),
            &mut |_| {},
        )
        .await
        .unwrap_err();
        assert!(
            error.to_string().contains("absolute http(s) URL"),
            "{error}"
        );
    }

    #[tokio::test]
    async fn in_page_tabs_are_clicked_and_site_wide_buttons_once() {
        let mut tab = link("Shipping", "https://shop.test/p/1#shipping");
        tab.effect = Effect::Anchor(
            "https://shop.test/p/1#shipping".into(),
            vec![
                field(0, "spinbutton", "number", "weight_g", "Parcel weight (g)"),
                submit(0, "Get shipping rates"),
            ],
        );
        let home = vec![
            button("Account", Effect::Nothing),
            link("Product", "https://shop.test/p/1"),
        ];
        let product = vec![button("Account", Effect::Nothing), tab];
        let browser = FakeBrowser::new([
            ("https://shop.test/", home),
            ("https://shop.test/p/1", product),
        ]);
        let (report, _) = run(&browser, &ExplorerConfig::new("https://shop.test/")).await;
        let log = browser.log();
        assert_eq!(
            log.iter().filter(|l| *l == "click Account").count(),
            1,
            "{log:?}"
        );
        assert!(log.contains(&"click Shipping".to_owned()), "{log:?}");
        assert!(
            log.contains(&"click Get shipping rates".to_owned()),
            "{log:?}"
        );
        assert_eq!(report.forms_submitted, 1);
    }

    #[tokio::test]
    async fn a_revealed_form_is_submitted_before_the_page_rerenders() {
        let edit = button(
            "Edit",
            Effect::Reveal(vec![
                field(1, "textbox", "text", "city", "City"),
                submit(1, "Save address"),
            ]),
        );
        let mut add = submit(0, "Add address");
        add.effect = Effect::Rerender;
        let page = vec![edit, field(0, "textbox", "text", "city", "City"), add];
        let browser = FakeBrowser::new([("https://shop.test/addresses", page)]);
        let (report, _) = run(
            &browser,
            &ExplorerConfig::new("https://shop.test/addresses"),
        )
        .await;
        let clicks: Vec<String> = browser
            .log()
            .into_iter()
            .filter(|l| l.starts_with("click "))
            .collect();
        assert_eq!(
            clicks,
            ["click Edit", "click Save address", "click Add address"]
        );
        assert_eq!(report.forms_submitted, 2);
    }
}
