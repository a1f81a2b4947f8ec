//! The exploration loop: pages taken from a frontier that prefers what is
//! new, and on each page a queue of actions (clicks, form submissions)
//! planned from its snapshot and extended with whatever those actions reveal.
//!
//! Every step is measured ([`Novelty`]): what the page asked its site for and
//! which controls it showed. The measure decides which pages of an
//! already-visited shape are worth a third visit, when the rest of a list's
//! entries can be left alone, and which pages to put off while others wait.

use std::collections::{HashMap, HashSet, VecDeque};
use std::time::Duration;

use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use url::Url;

use super::fill::{FieldAction, fill};
use super::mode::Mode;
use super::novelty::{Gain, Novelty};
use super::plan::{
    CLICKABLE_ROLES, ENTRY_ROLES, FieldGroup, Layers, MANY_CHOICES, Planned, Press, Step,
    find_click, find_form, find_form_again, form_fingerprint, list_key, member_key, submit_control,
};
use super::policy::{
    families, followable, is_destructive, is_dismissal, is_in_page_link, page_key, page_place,
    site_of, url_shape,
};
use super::refusal;
use super::{ExplorerConfig, ExplorerError, ExplorerEvent, ExplorerReport, Revision, StopReason};
use crate::browser::{
    Browser, BrowserError, DialogAction, ElementInfo, Ref, SentRequest, Snapshot, Wait,
};

/// After each action: network quiet for 300 ms, at most 5 s.
const SETTLE: Wait = Wait::NetworkIdle {
    quiet: Duration::from_millis(300),
    timeout: Duration::from_secs(5),
};

/// How long a dialog's form gets to finish its own checks (a name looked up
/// on the server) before its submit button is pressed again.
const VALIDATION: Duration = Duration::from_millis(600);

/// How long a page that showed nothing new on arrival gets to render before
/// it is looked at again.
const RENDER: Duration = Duration::from_millis(700);

/// A form as [`Crawl::fill_form`] left it.
struct Filled {
    /// Its members as last found (a re-render may have changed them).
    fields: Vec<ElementInfo>,
    /// How many fields were filled.
    filled: usize,
    /// The last field typed into and its text (Enter there submits a form
    /// without a button).
    last_text: Option<(Ref, String)>,
    /// The fields typed into, for reading what the form refuses.
    typed: Vec<Ref>,
}

/// The key of a form in [`Crawl::done`]: forms are planned once per page shape.
fn form_key(shape: &str, fingerprint: &str) -> String {
    format!("{shape}|form|{fingerprint}")
}

/// What a field a form refused is given next, in turn: a plain word (a name
/// that may hold no spaces), a number (a setting that takes one), then
/// nothing (an optional field left alone, as a person would leave it).
const REVISIONS: [&str; 3] = ["explorer1", "1", ""];

/// Times a form that re-rendered while it was filled is found again.
const REFILLS: usize = 2;

/// Actions on one page in a row that asked the site for nothing new before
/// the rest of its plan is put off until no other page waits (controls alone
/// do not count here: a page of settings panels would otherwise keep the
/// explorer from every other page).
const PAGE_PATIENCE: usize = 6;

/// Entries of one list tried in a row with nothing new before the rest are left.
pub(crate) const DULL_ENTRIES: usize = 2;

/// Context clicks that showed nothing before no more are planned: an app
/// either offers context menus on its entries or it does not.
const CONTEXT_PATIENCE: usize = 2;

/// Controls that one click hid, with nothing shown instead and nothing asked
/// of the server, for that click to count as hiding the navigation.
const HIDDEN_TO_UNDO: usize = 3;

/// Explores from `config.start` until a budget runs out, a run of steps finds
/// nothing new, nothing is left, or `cancel` fires. Progress goes to
/// `on_event`. Only a browser that stopped working, or an unusable start URL,
/// is an error; failed actions are counted and skipped.
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
        novelty: Novelty::new(&site),
        site,
        deadline: Instant::now() + config.time_budget,
        frontier: VecDeque::from([(start.clone(), 0, 0)]),
        depth: 0,
        queued: HashSet::from([page_key(&start, &[]).to_string()]),
        shapes: HashMap::new(),
        done: HashSet::new(),
        typed: Vec::new(),
        deferred: VecDeque::new(),
        context_tried: HashSet::new(),
        context_dull: 0,
        identical: HashSet::new(),
        batches: 0,
        dull: HashMap::new(),
        carried: Vec::new(),
        mode: None,
        own_mode: HashSet::new(),
        families: HashMap::new(),
        report: ExplorerReport::default(),
    };
    // What loaded before the exploration (the session's first page) is not the explorer's.
    crawl.forget_requests().await?;
    let started = Instant::now();
    crawl.report.stopped = crawl.run().await?;
    crawl.report.elapsed = started.elapsed();
    crawl.report.request_shapes = crawl.novelty.request_shapes();
    crawl.report.pages_left = crawl.frontier.len();
    crawl.report.actions_left += crawl.deferred.iter().map(|d| d.plan.len()).sum::<usize>();
    crawl.report.identical = crawl.identical.len();
    Ok(crawl.report)
}

/// What became of a planned action.
enum Acted {
    /// Done, on the page as it was found (and, for a click, the element).
    Done(Snapshot, Option<Box<ElementInfo>>),
    /// Not done: its control was gone or the browser refused.
    Not,
    /// Not done because the control that revealed it is gone: neither can
    /// anything else it revealed be.
    OpenerGone,
}

/// A page whose plan was put off while other pages waited: the explorer
/// comes back to it (the same URL, the state its plan's reopening clicks
/// restore) once no page is left, so "nothing left" is only said when it is
/// true.
struct Deferred {
    url: Url,
    shape: String,
    depth: usize,
    plan: VecDeque<Planned>,
}

/// One family of pages ([`families`]): the places known in it, and how
/// many of its visits in a row, after the first, asked the site for nothing
/// new but what carries the page's own value (the catalog entry
/// `/blocks/catalog/secret` asking for `/api/block_types/slug/secret`: its
/// sibling's request, for its own entry). A family of more pages than a
/// menu of sections holds ([`MANY_CHOICES`]) is a catalog's entries:
/// once [`DULL_ENTRIES`] of them in a row brought nothing else, the rest are
/// left, as a list's entries are.
#[derive(Debug, Default, Clone)]
struct FamilyVisits {
    places: HashSet<String>,
    visits: usize,
    dull: usize,
}

impl FamilyVisits {
    fn record(&mut self, brought_other: bool) {
        self.visits += 1;
        if self.visits > 1 {
            self.dull = if brought_other { 0 } else { self.dull + 1 };
        }
    }

    fn closed(&self) -> bool {
        self.dull >= DULL_ENTRIES && self.places.len() > MANY_CHOICES
    }
}

/// Whether a request shape (`GET host/api/block_types/slug/secret?fields`)
/// carries `value` as one of its path segments.
fn carries(request: &str, value: &str) -> bool {
    request
        .split(['/', '?', ' '])
        .any(|segment| segment == value)
}

/// Visits of one URL shape: the places visited, and whether the last one
/// found something new.
#[derive(Debug, Default, Clone)]
struct ShapeVisits {
    places: HashSet<String>,
    last_was_new: bool,
}

struct Crawl<'a> {
    browser: &'a dyn Browser,
    config: &'a ExplorerConfig,
    cancel: &'a CancellationToken,
    on_event: &'a mut (dyn FnMut(ExplorerEvent) + Send),
    site: String,
    deadline: Instant,
    /// Pages to visit, each with its depth (links followed from the start)
    /// and how many pages had been visited when it was found.
    frontier: VecDeque<(Url, usize, usize)>,
    /// The depth of the page being explored.
    depth: usize,
    /// Page keys ([`page_key`]) ever queued.
    queued: HashSet<String>,
    shapes: HashMap<String, ShapeVisits>,
    /// Action keys already planned (`role|name` site-wide, forms per page shape).
    done: HashSet<String>,
    novelty: Novelty,
    /// Text typed into fields, so result pages of the explorer's own searches
    /// are not new pages.
    typed: Vec<String>,
    /// Pages whose plans were put off, in the order they were left.
    deferred: VecDeque<Deferred>,
    /// Page shapes and roles whose entries had a context menu opened (once each).
    context_tried: HashSet<String>,
    /// Context clicks that showed nothing: an app that offers no context
    /// menus is not asked again and again.
    context_dull: usize,
    /// Controls repeated on a page (one "Add to cart" per row): tried once,
    /// the rest left as identical to the one tried.
    identical: HashSet<String>,
    /// Plans made so far (a list is known by its plan and group).
    batches: usize,
    /// Entries of a list tried in a row that found nothing new.
    dull: HashMap<(usize, String), usize>,
    /// Requests taken from the browser mid-action, for the next measure.
    carried: Vec<SentRequest>,
    /// The app mode the explorer chose last, kept when the app switches out of it.
    mode: Option<Mode>,
    /// Page shapes whose URL holds the other mode ([`Crawl::keep_mode`]).
    own_mode: HashSet<String>,
    /// Families of pages ([`families`]): the pages known in each, and how
    /// visits to them went.
    families: HashMap<String, FamilyVisits>,
    report: ExplorerReport,
}

impl Crawl<'_> {
    async fn run(&mut self) -> Result<StopReason, ExplorerError> {
        loop {
            if let Some(stop) = self.should_stop() {
                return Ok(stop);
            }
            if self.report.pages_visited >= self.config.max_pages {
                return Ok(StopReason::PageBudget);
            }
            let (url, shape, depth, resumed) = match self.next_page() {
                Some((url, shape, depth)) => (url, shape, depth, None),
                None => match self.deferred.pop_front() {
                    Some(left) => (left.url, left.shape, left.depth, Some(left.plan)),
                    None => return Ok(StopReason::Exhausted),
                },
            };
            self.depth = depth;
            if !self.load(&url).await? {
                self.report.actions_left += resumed.map_or(0, |plan| plan.len());
                continue;
            }
            let url = self.landed(url).await?;
            self.report.pages_visited += 1;
            (self.on_event)(match &resumed {
                None => ExplorerEvent::Visit {
                    url: url.to_string(),
                },
                Some(plan) => ExplorerEvent::Return {
                    url: url.to_string(),
                    untried: plan.len(),
                },
            });
            let Some(snapshot) = self.snapshot().await? else {
                continue;
            };
            let Some(snapshot) = self.keep_mode(snapshot, &url, &shape).await? else {
                continue;
            };
            let gain = self.measure(Some(&snapshot), None).await?;
            if resumed.is_none() {
                for (family, value) in families(&url) {
                    let other = (self.novelty.fresh_requests().iter()).any(|r| !carries(r, &value));
                    self.families.entry(family).or_default().record(other);
                }
            }
            let visits = self.shapes.entry(shape.clone()).or_default();
            visits.places.insert(page_place(&url).to_string());
            visits.last_was_new = gain.any();
            if let Some(stop) = self
                .explore_page(&url, &shape, snapshot, resumed.unwrap_or_default())
                .await?
            {
                return Ok(stop);
            }
        }
    }

    /// The next page to load. A page of a shape not visited yet comes
    /// first, then a second place of a visited shape (templating wants two
    /// values), then more places of a shape whose last page still found
    /// something new (up to `per_shape`); a shallower page beats a deeper one
    /// of the same rank, so one item's every tab does not crowd out the next
    /// item; of equals, the one found last. The same place sorted or filtered otherwise is not visited
    /// again. Pages that can no longer qualify leave the frontier and are counted.
    fn next_page(&mut self) -> Option<(Url, String, usize)> {
        let per_shape = self.config.per_shape;
        let mut best: Option<(usize, (usize, usize))> = None;
        let mut index = 0;
        while index < self.frontier.len() {
            let (url, depth, found) = &self.frontier[index];
            let shape = page_shape(url, &self.typed);
            let place = page_place(url).to_string();
            let visits = self.shapes.get(&shape);
            let seen = visits.map_or(0, |v| v.places.len());
            let closed = families(url)
                .iter()
                .any(|(family, _)| self.families.get(family).is_some_and(FamilyVisits::closed));
            if closed && visits.is_none_or(|v| !v.places.contains(&place)) {
                self.frontier.remove(index);
                self.report.pages_same_family += 1;
                continue;
            }
            let rank = match visits {
                None => Some(0),
                Some(v) if v.places.contains(&place) => None,
                Some(_) if seen == 1 && per_shape > 1 => Some(1),
                Some(v) if seen < per_shape && v.last_was_new => Some(2),
                Some(_) => None,
            };
            let Some(rank) = rank else {
                self.frontier.remove(index);
                self.report.pages_same_shape += 1;
                continue;
            };
            let score = rank + depth;
            // Of pages that rank alike, one the latest page showed (an
            // experiment's runs) before those found earlier; of one page's,
            // the first shown.
            let order = (score, usize::MAX - found);
            if best.is_none_or(|(_, o)| order < o) {
                best = Some((index, order));
            }
            index += 1;
        }
        let (index, _) = best?;
        let (url, depth, _) = self.frontier.remove(index)?;
        let shape = page_shape(&url, &self.typed);
        Some((url, shape, depth))
    }

    /// Where loading `asked` landed. A page that sends the browser on when
    /// it loads (`/` to `/dashboard`, `/runs` to `/runs?tab=flows`) is the
    /// page it lands on: its actions are judged against that address (or
    /// each would read as leaving the page, and reload it), and the page is
    /// not visited again under its own address. Another site is no landing.
    async fn landed(&mut self, asked: Url) -> Result<Url, ExplorerError> {
        let Some(now) = self.current_url().await? else {
            return Ok(asked);
        };
        let Some(landed) = followable(&now, &self.site).filter(|landed| {
            page_key(landed, &self.typed) != page_key(&asked, &self.typed)
                && !is_same_page(&now, &asked)
        }) else {
            return Ok(asked);
        };
        self.queued
            .insert(page_key(&landed, &self.typed).to_string());
        let shape = page_shape(&landed, &self.typed);
        let place = page_place(&landed).to_string();
        self.shapes.entry(shape).or_default().places.insert(place);
        Ok(Url::parse(&now).unwrap_or(landed))
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

    /// Records what the page sent since the last look and what it shows now;
    /// `chosen` is the control just clicked, whose name shown back (a picked
    /// language on the status bar) is the choice's echo, not a new control.
    async fn measure(
        &mut self,
        shown: Option<&Snapshot>,
        chosen: Option<&str>,
    ) -> Result<Gain, ExplorerError> {
        self.carry().await?;
        let sent = std::mem::take(&mut self.carried);
        Ok(self.novelty.record(&sent, shown, chosen))
    }

    /// Takes what the page sent so far into [`Crawl::carried`].
    async fn carry(&mut self) -> Result<(), ExplorerError> {
        match self.browser.take_requests().await {
            Ok(sent) => self.carried.extend(sent),
            Err(error) => self.failed("read the page's requests".to_owned(), error)?,
        }
        Ok(())
    }

    /// Drops what the page sent so far: requests that are not an action's.
    async fn forget_requests(&mut self) -> Result<(), ExplorerError> {
        self.carry().await?;
        self.carried.clear();
        Ok(())
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

    /// Works through a page's plan: `plan` (what was put off on an earlier
    /// visit), then what its snapshot shows that was never planned.
    async fn explore_page(
        &mut self,
        url: &Url,
        shape: &str,
        snapshot: Snapshot,
        mut plan: VecDeque<Planned>,
    ) -> Result<Option<StopReason>, ExplorerError> {
        plan.extend(self.absorb(&snapshot, url, shape, &[]));
        // A page of a new shape that shows nothing new on arrival may still
        // be rendering what it fetched (a busy machine lags the network): it
        // is looked at once more before it is left. (Another place of a
        // known shape is expected to show nothing new.)
        let first_of_shape = self.shapes.get(shape).is_none_or(|v| v.places.len() <= 1);
        if plan.is_empty() && first_of_shape {
            let _ = self.browser.wait(Wait::Time(RENDER)).await;
            if let Some(later) = self.snapshot().await? {
                plan.extend(self.absorb(&later, url, shape, &[]));
            }
        }
        let mut dull_here = 0;
        // The last action done: the state the run of dull actions is in.
        let mut last: Option<Planned> = None;
        while let Some(mut action) = plan.pop_front() {
            if let Some(stop) = self.should_stop() {
                self.report.actions_left += plan.len() + 1;
                return Ok(Some(stop));
            }
            if dull_here >= PAGE_PATIENCE && !self.frontier.is_empty() {
                plan.push_front(action);
                self.deferred.push_back(Deferred {
                    url: url.clone(),
                    shape: shape.to_owned(),
                    depth: self.depth,
                    plan,
                });
                break;
            }
            // With no other page waiting, a state of this page whose actions
            // stopped asking for anything new (a settings panel's options, a
            // table of shortcuts) goes behind the page's other states, as a
            // dull page goes behind other pages: it is finished after them.
            if dull_here >= PAGE_PATIENCE
                && let Some(dull) = &last
                && action.same_state(dull)
            {
                plan.push_front(action);
                if put_state_behind(&mut plan, dull) {
                    dull_here = 0;
                }
                let Some(next) = plan.pop_front() else { break };
                action = next;
            }
            if let Planned::Click {
                list: Some(list), ..
            } = &action
                && self.dull.get(list).copied().unwrap_or(0) >= DULL_ENTRIES
            {
                self.report.entries_left += 1;
                continue;
            }
            let Some(before) = self.snapshot().await? else {
                continue;
            };
            let Some(before) = self.keep_mode(before, url, shape).await? else {
                continue;
            };
            let (before, acted) = match self.act(before, &action, shape).await? {
                Acted::Done(before, acted) => (before, acted.map(|e| *e)),
                Acted::Not => continue,
                Acted::OpenerGone => {
                    let planned = plan.len();
                    plan.retain(|p| !p.via().starts_with(action.via()));
                    self.report.actions_gone += 1 + planned - plan.len();
                    continue;
                }
            };
            self.report.actions += 1;
            last = Some(action.clone());
            self.settle().await?;
            let Some(now) = self.current_url().await? else {
                continue;
            };
            let after = self.snapshot().await?;
            let chosen = acted.as_ref().map(|e| e.name.as_str());
            let mut gain = self.measure(after.as_ref(), chosen).await?;
            dull_here = if gain.requests > 0 { 0 } else { dull_here + 1 };
            if !is_same_page(&now, url) {
                // The action navigated away: remember the new page, come back
                // for the rest. The new page is a step from this one, and
                // what it links to a step further: a catalog a button opened
                // does not put its entries beside this page's own links.
                self.enqueue(&now, self.depth + 1);
                if let Some(after) = &after {
                    self.enqueue_links(after, self.depth + 2);
                }
                self.note_list(&action, gain);
                if !self.load(url).await? {
                    return Ok(None);
                }
                continue;
            }
            let Some(mut after) = after else {
                continue;
            };
            let main_click = matches!(
                action,
                Planned::Click {
                    press: Press::Main,
                    ..
                }
            );
            if let Some(entry) = acted
                .as_ref()
                .filter(|e| main_click && ENTRY_ROLES.contains(&e.role.as_str()))
                && !gain.any()
                && revealed(&before, &after) == 0
                && let Some((page, more, shown)) = self.double_click(entry, url).await?
            {
                gain = more;
                if !is_same_page(&page, url) {
                    self.enqueue(&page, self.depth + 1);
                    self.note_list(&action, gain);
                    if !self.load(url).await? {
                        return Ok(None);
                    }
                    continue;
                }
                after = shown;
            }
            self.note_list(&action, gain);
            let context_click = matches!(
                action,
                Planned::Click {
                    press: Press::Context,
                    ..
                }
            );
            if context_click && revealed(&before, &after) == 0 {
                self.context_dull += 1;
            }
            if let Some(control) = &acted
                && let Some(mode) = Mode::chosen_by(control, &before, &after)
            {
                self.mode = Some(mode);
            }
            if let Some(control) = &acted
                && gain.requests == 0
            {
                let hidden = hid_navigation(&before, &after, control);
                if hidden >= HIDDEN_TO_UNDO {
                    self.undo(control, hidden, &after, url).await?;
                    continue;
                }
            }
            // Same page: what the action revealed (a menu's items, a dialog's
            // form) is done next, while it is still open.
            let mut via = action.via().to_vec();
            if let Planned::Click {
                role, name, press, ..
            } = &action
            {
                via.push(Step {
                    role: role.clone(),
                    name: name.clone(),
                    press: *press,
                });
            }
            for revealed in self.absorb(&after, url, shape, &via).into_iter().rev() {
                plan.push_front(revealed);
            }
        }
        Ok(None)
    }

    /// Performs a planned action on the page as it is now, closing a dialog
    /// or popup that stands in its way and reopening what revealed it if it
    /// is no longer shown.
    async fn act(
        &mut self,
        mut current: Snapshot,
        action: &Planned,
        shape: &str,
    ) -> Result<Acted, ExplorerError> {
        // A dialog opened since the action was planned (an error the app
        // showed, a menu an item left open) stands between a person and the
        // page: it is closed before a control outside it is used.
        if !in_dialog(&current, action)
            && let Some(dialog) = action.layers().newer_dialog(&current)
            && let Some(closed) = self.close_dialog(&current, dialog).await?
        {
            current = closed;
        }
        if !is_shown(&current, action) && !action.via().is_empty() {
            for (depth, step) in action.via().iter().enumerate() {
                let opener = find_pressed(&current, &step.role, &step.name, 0, step.press).cloned();
                let Some(opener) = opener else {
                    if depth == 0 {
                        // What revealed it is gone (a picker renamed by the
                        // choice made in it): so is all it revealed.
                        return Ok(Acted::OpenerGone);
                    }
                    break;
                };
                if self
                    .press_element(
                        &opener,
                        step.press,
                        &format!("reopen {} \"{}\"", step.role, step.name),
                    )
                    .await?
                {
                    self.settle().await?;
                }
                let Some(next) = self.snapshot().await? else {
                    return Ok(Acted::Not);
                };
                current = next;
            }
        }
        if !is_shown(&current, action) {
            let tabs: Vec<ElementInfo> = (action.layers().tabs_to_reselect(&current))
                .into_iter()
                .cloned()
                .collect();
            for tab in &tabs {
                if self
                    .click_element(tab, &format!("select tab \"{}\" again", tab.name))
                    .await?
                {
                    self.settle().await?;
                }
            }
            if !tabs.is_empty()
                && let Some(next) = self.snapshot().await?
            {
                current = next;
            }
        }
        match action {
            Planned::Click {
                role,
                name,
                occurrence,
                press,
                ..
            } => {
                let Some(element) =
                    find_pressed(&current, role, name, *occurrence, *press).cloned()
                else {
                    self.report.actions_gone += 1;
                    return Ok(Acted::Not);
                };
                let what = match press {
                    Press::Main => format!("click {role} \"{name}\""),
                    Press::Context => format!("open the context menu of {role} \"{name}\""),
                };
                if !self.press_element(&element, *press, &what).await? {
                    return Ok(Acted::Not);
                }
                (self.on_event)(match press {
                    Press::Main => ExplorerEvent::Click {
                        role: role.clone(),
                        name: name.clone(),
                    },
                    Press::Context => ExplorerEvent::ContextMenu {
                        role: role.clone(),
                        name: name.clone(),
                    },
                });
                Ok(Acted::Done(current, Some(Box::new(element))))
            }
            Planned::Form {
                fingerprint, label, ..
            } => {
                let Some(became) = self.submit(&current, fingerprint, label).await? else {
                    return Ok(Acted::Not);
                };
                // What a choice in it made the form ask for was filled too.
                self.done.insert(form_key(shape, &became));
                Ok(Acted::Done(current, None))
            }
        }
    }

    /// Closes `dialog` as a person would: Escape, else its dismissal button
    /// ("Close", "Cancel"), else its only button when that is harmless (an
    /// alert's "OK"). The page as it is then; `None` when nothing was done.
    async fn close_dialog(
        &mut self,
        shown: &Snapshot,
        dialog: u32,
    ) -> Result<Option<Snapshot>, ExplorerError> {
        if self.browser.press("Escape").await.is_ok() {
            self.settle().await?;
        }
        let Some(now) = self.snapshot().await? else {
            return Ok(None);
        };
        if now.elements.iter().all(|e| e.dialog.is_none()) {
            return Ok(Some(now));
        }
        let buttons: Vec<&ElementInfo> = shown
            .elements
            .iter()
            .filter(|e| e.dialog == Some(dialog) && e.role == "button" && !e.disabled)
            .collect();
        let button = buttons
            .iter()
            .find(|e| is_dismissal(&e.name))
            .or(match buttons.as_slice() {
                [only] if !is_destructive(&only.name, None) => Some(only),
                _ => None,
            })
            .and_then(|b| find_click(&now, &b.role, &b.name, 0))
            .cloned();
        let Some(button) = button else {
            return Ok(Some(now));
        };
        if self
            .click_element(
                &button,
                &format!("close the dialog with \"{}\"", button.name),
            )
            .await?
        {
            self.settle().await?;
        }
        self.snapshot().await
    }

    /// Clicks an element; a failure is counted and reported as `what`.
    async fn click_element(
        &mut self,
        element: &ElementInfo,
        what: &str,
    ) -> Result<bool, ExplorerError> {
        self.press_element(element, Press::Main, what).await
    }

    /// Clicks an element with the main button or opens its context menu; a
    /// failure is counted and reported as `what`.
    async fn press_element(
        &mut self,
        element: &ElementInfo,
        press: Press,
        what: &str,
    ) -> Result<bool, ExplorerError> {
        let pressed = match press {
            Press::Main => self.browser.click(element.reference).await,
            Press::Context => self.browser.context_click(element.reference).await,
        };
        match pressed {
            Ok(()) => Ok(true),
            Err(error) => {
                self.failed(what.to_owned(), error)?;
                Ok(false)
            }
        }
    }

    /// A list entry that did nothing when clicked: many apps open entries on a
    /// double-click. Returns where the browser is then, what was new, and the page.
    async fn double_click(
        &mut self,
        entry: &ElementInfo,
        page: &Url,
    ) -> Result<Option<(String, Gain, Snapshot)>, ExplorerError> {
        if let Err(error) = self.browser.double_click(entry.reference).await {
            self.failed(format!("double-click \"{}\"", entry.name), error)?;
            return Ok(None);
        }
        (self.on_event)(ExplorerEvent::DoubleClick {
            role: entry.role.clone(),
            name: entry.name.clone(),
        });
        self.settle().await?;
        let now = self
            .current_url()
            .await?
            .unwrap_or_else(|| page.to_string());
        let Some(shown) = self.snapshot().await? else {
            return Ok(None);
        };
        let gain = self.measure(Some(&shown), Some(&entry.name)).await?;
        Ok(Some((now, gain, shown)))
    }

    /// Counts a list entry's outcome: a run of dull entries closes the list.
    /// An entry is dull when it asked the site for nothing new: entries of
    /// one list are alike, so the panel one shows (a settings page of its
    /// own, a row's details) another shows under other names, and only a
    /// new request says an entry differs. What an entry revealed is still
    /// planned, so the first entries' panels are explored.
    fn note_list(&mut self, action: &Planned, gain: Gain) {
        if let Planned::Click {
            list: Some(list), ..
        } = action
        {
            let dull = self.dull.entry(list.clone()).or_insert(0);
            *dull = if gain.requests > 0 { 0 } else { *dull + 1 };
        }
    }

    /// Clicks a control again that hid the navigation (a sidebar toggle),
    /// or reloads the page when that does not bring it back.
    /// `collapsed` is the page as the first click left it.
    async fn undo(
        &mut self,
        control: &ElementInfo,
        hidden: usize,
        collapsed: &Snapshot,
        page: &Url,
    ) -> Result<(), ExplorerError> {
        (self.on_event)(ExplorerEvent::Undo {
            name: control.name.clone(),
            hidden,
        });
        self.report.undone.push(control.name.clone());
        if self
            .click_element(control, &format!("undo \"{}\"", control.name))
            .await?
        {
            self.settle().await?;
        }
        let back = self
            .snapshot()
            .await?
            .is_some_and(|restored| revealed(collapsed, &restored) >= hidden);
        self.forget_requests().await?;
        if !back {
            self.load(page).await?;
        }
        Ok(())
    }

    /// Chooses the explorer's mode again when `shown`, the page at `url`,
    /// says the app switched out of it ([`Mode`]); the page as it is then.
    /// A page that left for another URL when the mode was chosen carries the
    /// other mode in its own URL (`?view=genai`): it is loaded again as it
    /// was, and pages of its shape are left in their mode from then on.
    async fn keep_mode(
        &mut self,
        shown: Snapshot,
        url: &Url,
        shape: &str,
    ) -> Result<Option<Snapshot>, ExplorerError> {
        let Some(mode) = &self.mode else {
            return Ok(Some(shown));
        };
        if self.own_mode.contains(shape) {
            return Ok(Some(shown));
        }
        let Some(option) = mode.switched_back(&shown).cloned() else {
            return Ok(Some(shown));
        };
        if !self
            .click_element(&option, &format!("choose \"{}\" again", option.name))
            .await?
        {
            return Ok(Some(shown));
        }
        self.settle().await?;
        let Some(now) = self.current_url().await? else {
            return Ok(None);
        };
        if !is_same_page(&now, url) {
            self.own_mode.insert(shape.to_owned());
            self.enqueue(&now, self.depth + 1);
            self.forget_requests().await?;
            if !self.load(url).await? {
                return Ok(None);
            }
        } else {
            (self.on_event)(ExplorerEvent::KeepMode {
                name: option.name.clone(),
            });
            self.report.modes_kept.push(option.name);
        }
        self.snapshot().await
    }

    /// Queues the snapshot's links and plans its not-yet-done actions.
    ///
    /// A click is done once per role and name across the whole site (the
    /// "Account" menu in every page's header is opened once); a form once per
    /// page shape (the review form of each kind of page). A dialog that asks
    /// to confirm something destructive is cancelled first.
    fn absorb(
        &mut self,
        snapshot: &Snapshot,
        url: &Url,
        shape: &str,
        via: &[Step],
    ) -> Vec<Planned> {
        self.batches += 1;
        let batch = self.batches;
        let mut plan = Vec::new();
        self.enqueue_links(snapshot, self.depth + 1);
        let mut forms = Vec::new();
        let mut submits: HashSet<Ref> = HashSet::new();
        for group in FieldGroup::all(snapshot) {
            let fields = group.members(snapshot);
            if let Some(submit) = submit_control(snapshot, &fields, |e| {
                !is_destructive(&e.name, None) || self.config.allow_destructive
            }) {
                submits.insert(submit.reference);
            }
            forms.push(fields);
        }
        let mut occurrences: HashMap<(&str, &str), usize> = HashMap::new();
        let mut confirmations: Vec<u32> = Vec::new();
        let mut contexts = Vec::new();
        let layers = Layers::of(snapshot);
        for element in &snapshot.elements {
            if FieldGroup::of(element).is_some() {
                continue;
            }
            let count = occurrences
                .entry((element.role.as_str(), element.name.as_str()))
                .or_insert(0);
            let occurrence = *count;
            *count += 1;
            let in_page = element
                .href
                .as_deref()
                .is_some_and(|href| is_in_page_link(href, url));
            // A control with the address of another page is a link to it
            // (a sidebar's buttons): the page was queued with the links and
            // is visited in its turn, so a click here would load it twice.
            let leads_elsewhere = element
                .href
                .as_deref()
                .and_then(|href| followable(href, &self.site))
                .is_some_and(|target| page_place(&target) != page_place(url));
            // Closing a dialog teaches nothing; dialogs are closed when done with.
            if element.disabled
                || leads_elsewhere
                || is_dismissal(&element.name)
                || submits.contains(&element.reference)
                || !(in_page || CLICKABLE_ROLES.contains(&element.role.as_str()))
            {
                continue;
            }
            // Repeated controls (one "Add to cart" per row) are tried once.
            if occurrence > 0 {
                self.identical
                    .insert(format!("{shape}|{}|{}", element.role, element.name));
                continue;
            }
            let destructive = is_destructive(&element.name, element.href.as_deref());
            if destructive
                && !self.config.allow_destructive
                && let Some(dialog) = element.dialog
                && !confirmations.contains(&dialog)
            {
                confirmations.push(dialog);
            }
            if !self.allowed(
                &element.name,
                element.href.as_deref(),
                &format!("{}|{}", element.role, element.name),
            ) {
                continue;
            }
            let list = list_key(snapshot, element);
            // An entry's context menu, at both ends of its list (a folder's
            // menu greys out what a file's offers).
            let end = list.as_ref().and_then(|key| {
                let mut entries = (snapshot.elements.iter()).filter(|e| {
                    e.role == element.role && list_key(snapshot, e).as_ref() == Some(key)
                });
                let first = entries.next().map(|e| e.reference);
                let last = entries.next_back().map(|e| e.reference);
                if first == Some(element.reference) {
                    Some("first")
                } else if last == Some(element.reference) {
                    Some("last")
                } else {
                    None
                }
            });
            if ENTRY_ROLES.contains(&element.role.as_str())
                && self.context_dull < CONTEXT_PATIENCE
                && let Some(end) = end
                && self
                    .context_tried
                    .insert(format!("{shape}|{}|{end}", element.role))
            {
                contexts.push(Planned::Click {
                    role: element.role.clone(),
                    name: element.name.clone(),
                    occurrence,
                    press: Press::Context,
                    list: None,
                    via: via.to_vec(),
                    layers: layers.clone(),
                });
            }
            plan.push(Planned::Click {
                role: element.role.clone(),
                name: element.name.clone(),
                occurrence,
                press: Press::Main,
                list: list.map(|key| (batch, key)),
                via: via.to_vec(),
                layers: layers.clone(),
            });
        }
        try_ends_first(&mut plan);
        // An entry's context menu (a file's Rename, Duplicate, Delete) once
        // its list has been tried: once per page shape and kind of entry.
        plan.extend(contexts);
        for fields in forms {
            let fingerprint = form_fingerprint(&fields);
            let label = fields
                .iter()
                .find(|e| submits.contains(&e.reference))
                .copied()
                .or_else(|| submit_control(snapshot, &fields, |_| true))
                .map_or_else(|| fingerprint.clone(), |b| b.name.clone());
            if !self.allowed(&label, None, &form_key(shape, &fingerprint)) {
                continue;
            }
            plan.push(Planned::Form {
                fingerprint,
                label,
                via: via.to_vec(),
                layers: layers.clone(),
            });
        }
        for dialog in confirmations.into_iter().rev() {
            if let Some(cancel) = dismissal_in(snapshot, dialog) {
                plan.insert(0, cancel);
            }
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

    /// Queues the snapshot's links as pages `depth` steps from the start.
    fn enqueue_links(&mut self, snapshot: &Snapshot, depth: usize) {
        for element in &snapshot.elements {
            let Some(href) = element.href.as_deref() else {
                continue;
            };
            if is_destructive(&element.name, Some(href)) && !self.config.allow_destructive {
                continue;
            }
            self.enqueue(href, depth);
        }
    }

    /// Queues a page `depth` steps from the start, unless it was queued before.
    fn enqueue(&mut self, href: &str, depth: usize) {
        if let Some(url) = followable(href, &self.site)
            && self.queued.insert(page_key(&url, &self.typed).to_string())
        {
            let place = page_place(&url).to_string();
            for (family, _) in families(&url) {
                (self.families.entry(family).or_default().places).insert(place.clone());
            }
            (self.frontier).push_back((url, depth, self.report.pages_visited));
        }
    }

    /// Fills a form's fields and submits it. A form in a dialog that is
    /// still open afterwards is submitted once more (its own checks were
    /// still running), then with the fields it refuses changed, then the
    /// dialog is closed. Returns the fingerprint of the form as submitted (a
    /// choice may have made it ask for other fields); `None` when it was not
    /// submitted.
    async fn submit(
        &mut self,
        snapshot: &Snapshot,
        fingerprint: &str,
        label: &str,
    ) -> Result<Option<String>, ExplorerError> {
        let Some(fields) = find_form(snapshot, fingerprint) else {
            return Ok(None);
        };
        let fields = fields.into_iter().cloned().collect();
        let Some(Filled {
            fields,
            filled,
            last_text,
            typed,
        }) = self.fill_form(fields, label).await?
        else {
            return Ok(None);
        };
        let fingerprint = form_fingerprint(&fields.iter().collect::<Vec<_>>());
        let submit = self.ready_submit(&fingerprint).await?;
        let submitted = match (&submit, last_text) {
            (Some((button, ..)), _) => self.browser.click(*button).await,
            (None, Some((field, text))) => self.browser.type_text(field, &text, true).await,
            (None, None) => return Ok(None),
        };
        if let Err(error) = submitted {
            self.failed(format!("submit \"{label}\""), error)?;
            return Ok(None);
        }
        self.report.forms_submitted += 1;
        (self.on_event)(ExplorerEvent::Submit {
            form: label.to_owned(),
            fields: filled,
        });
        if let Some((button, Some(_), as_submitted)) = submit {
            // What a refusal can be answered on: the fields typed into, and
            // boxes left unchecked (a group the form wants one of).
            let mut answerable = typed;
            answerable.extend(
                fields
                    .iter()
                    .filter(|e| e.role == "checkbox" && e.checked == Some(false))
                    .map(|e| e.reference),
            );
            self.see_through(button, &as_submitted, &answerable, label)
                .await?;
        }
        Ok(Some(fingerprint))
    }

    /// Fills `fields`, a form's members. A form that re-renders while it is
    /// filled (a dialog's opening animation, a choice that asks for other
    /// fields) makes refs stale or shows other fields: then it is found again
    /// and what it still lacks is filled. `None` when the form is gone.
    async fn fill_form(
        &mut self,
        mut fields: Vec<ElementInfo>,
        label: &str,
    ) -> Result<Option<Filled>, ExplorerError> {
        let upload = self
            .config
            .upload_file
            .as_ref()
            .map(|p| p.display().to_string());
        // Fields filled (or given up on), by [`member_key`] and occurrence.
        let mut done: HashSet<(String, usize)> = HashSet::new();
        let mut filled = 0;
        let mut last_text = None;
        // The fields typed into, for reading what the form refuses.
        let mut typed = Vec::new();
        for round in 0..=REFILLS {
            let mut stale = false;
            let mut chose = false;
            let mut seen: HashMap<String, usize> = HashMap::new();
            for field in &fields {
                let key = member_key(field);
                let occurrence = seen.entry(key.clone()).or_default();
                let id = (key, *occurrence);
                *occurrence += 1;
                if !super::plan::is_field(field) {
                    continue;
                }
                let action = fill(field, &fields, upload.as_deref());
                // A field filled before is only typed into again when a
                // re-render emptied it; nothing is clicked or chosen twice.
                if done.contains(&id) && !matches!(action, FieldAction::Type(_)) {
                    continue;
                }
                chose |= matches!(action, FieldAction::Select(_) | FieldAction::Check);
                let typing = matches!(action, FieldAction::Type(_));
                let result = match action {
                    FieldAction::Type(text) => {
                        last_text = Some((field.reference, text.clone()));
                        if !self.typed.contains(&text) {
                            self.typed.push(text.clone());
                        }
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
                    Ok(()) => {
                        if typing {
                            typed.push(field.reference);
                        }
                        if done.insert(id) {
                            filled += 1;
                        }
                    }
                    Err(BrowserError::StaleRef { .. }) if round < REFILLS => {
                        stale = true;
                        break;
                    }
                    Err(error) => {
                        done.insert(id);
                        self.failed(format!("fill \"{}\" in \"{label}\"", field.name), error)?
                    }
                }
            }
            if !(stale || chose) || round == REFILLS {
                break;
            }
            if stale {
                let _ = self.browser.wait(Wait::Time(VALIDATION)).await;
            }
            let Some(fresh) = self.snapshot().await? else {
                return Ok(None);
            };
            let before: Vec<String> = fields.iter().map(member_key).collect();
            let Some(again) = find_form_again(&fresh, &before) else {
                return Ok(None);
            };
            let again: Vec<ElementInfo> = again.into_iter().cloned().collect();
            let asks_more = again.iter().map(member_key).ne(before.iter().cloned());
            fields = again;
            if !stale && !asks_more {
                break;
            }
        }
        Ok(Some(Filled {
            fields,
            filled,
            last_text,
            typed,
        }))
    }

    /// After a dialog's form was submitted with `button`: while it is still
    /// shown and nothing was written, it is submitted once more (its own
    /// checks may still have been running), then with the fields it refuses
    /// changed ([`Crawl::revise_refused`]); then a dialog still open is closed.
    async fn see_through(
        &mut self,
        button: Ref,
        as_submitted: &Snapshot,
        answerable: &[Ref],
        label: &str,
    ) -> Result<(), ExplorerError> {
        let (mut wrote, mut shown) = self.outcome(button).await?;
        if !wrote && shown.is_some() {
            // Its own checks may still have been running (a name looked up).
            let _ = self.browser.wait(Wait::Time(VALIDATION)).await;
            if self.browser.click(button).await.is_ok() {
                (wrote, shown) = self.outcome(button).await?;
            }
        }
        // Fields the form refused get other values, in turn.
        let mut tried: HashMap<Ref, usize> = HashMap::new();
        for _ in 0..REVISIONS.len() {
            let Some(refusing) = shown.as_ref().filter(|_| !wrote) else {
                break;
            };
            let changed = self
                .revise_refused(as_submitted, refusing, answerable, &mut tried)
                .await?;
            if changed.is_empty() {
                break;
            }
            (self.on_event)(ExplorerEvent::Resubmit {
                form: label.to_owned(),
                changed,
            });
            if self.browser.click(button).await.is_err() {
                break;
            }
            (wrote, shown) = self.outcome(button).await?;
        }
        if shown.is_some() {
            let _ = self.browser.press("Escape").await;
        }
        Ok(())
    }

    /// After a dialog's form was submitted: whether the page wrote something
    /// (a data request other than a GET) and, while the form's submit control
    /// is still shown and enabled, the page as it is now.
    async fn outcome(&mut self, button: Ref) -> Result<(bool, Option<Snapshot>), ExplorerError> {
        self.settle().await?;
        self.carry().await?;
        let wrote = self
            .carried
            .iter()
            .any(|r| r.is_data() && r.method != "GET");
        let shown = self
            .snapshot()
            .await?
            .filter(|now| now.element(button).is_some_and(|e| !e.disabled));
        Ok((wrote, shown))
    }

    /// Answers what a form still shown after its submission refuses
    /// ([`refusal::flagged`] among `answerable`): a text field gets its next
    /// value in [`REVISIONS`] (`tried` counts them per field), never emptied
    /// when the form requires it; a group of boxes none of which is checked
    /// gets its first checked ([`refusal::box_to_check`]), once. What changed.
    async fn revise_refused(
        &mut self,
        as_submitted: &Snapshot,
        refusing: &Snapshot,
        answerable: &[Ref],
        tried: &mut HashMap<Ref, usize>,
    ) -> Result<Vec<Revision>, ExplorerError> {
        let mut changed = Vec::new();
        for field in refusal::flagged(as_submitted, refusing, answerable) {
            let Some(element) = refusing.element(field) else {
                continue;
            };
            if element.role == "checkbox" {
                let Some(first) = refusal::box_to_check(refusing, field) else {
                    continue;
                };
                if tried.insert(first.reference, 1).is_some() {
                    continue;
                }
                match self.browser.click(first.reference).await {
                    Ok(()) => changed.push(Revision::Checked {
                        field: first.name.clone(),
                    }),
                    Err(error) => self.failed(format!("check \"{}\"", first.name), error)?,
                }
                continue;
            }
            let next = tried.entry(field).or_default();
            let Some((skip, value)) = REVISIONS
                .iter()
                .enumerate()
                .skip(*next)
                .find(|(_, value)| !(value.is_empty() && element.required))
            else {
                continue;
            };
            *next = skip + 1;
            if !value.is_empty() && !self.typed.iter().any(|t| t == value) {
                self.typed.push((*value).to_owned());
            }
            let field_name = element.name.clone();
            match self.browser.type_text(field, value, false).await {
                Ok(()) if value.is_empty() => changed.push(Revision::Emptied { field: field_name }),
                Ok(()) => changed.push(Revision::Typed {
                    field: field_name,
                    text: (*value).to_owned(),
                }),
                Err(error) => self.failed(format!("change \"{field_name}\""), error)?,
            }
        }
        Ok(changed)
    }

    /// The form's submit control once its fields are filled: found again in
    /// a new snapshot, and given a moment if it is still disabled (the form
    /// enables it after its own checks). Its ref, its dialog, and the page
    /// as the form is submitted.
    async fn ready_submit(
        &mut self,
        fingerprint: &str,
    ) -> Result<Option<(Ref, Option<u32>, Snapshot)>, ExplorerError> {
        let allow = self.config.allow_destructive;
        for attempt in 0..2 {
            if attempt > 0 {
                let _ = self.browser.wait(Wait::Time(VALIDATION)).await;
            }
            let Some(now) = self.snapshot().await? else {
                return Ok(None);
            };
            let Some(fields) = find_form(&now, fingerprint) else {
                return Ok(None);
            };
            let Some(button) =
                submit_control(&now, &fields, |e| allow || !is_destructive(&e.name, None))
            else {
                return Ok(None);
            };
            if !button.disabled {
                let (reference, dialog) = (button.reference, button.dialog);
                return Ok(Some((reference, dialog, now)));
            }
        }
        Ok(None)
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

    /// The address the browser shows; `None` when it could not be read
    /// (counted as a failed action).
    async fn current_url(&mut self) -> Result<Option<String>, ExplorerError> {
        match self.browser.page().await {
            Ok(page) => Ok(Some(page.url)),
            Err(error) => self
                .failed("read the current page".to_owned(), error)
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

/// Moves the actions planned in `state`'s state ([`Planned::same_state`])
/// behind the others, in their order; `false` when no other is left.
fn put_state_behind(plan: &mut VecDeque<Planned>, state: &Planned) -> bool {
    let (same, others): (VecDeque<Planned>, VecDeque<Planned>) =
        plan.drain(..).partition(|p| p.same_state(state));
    let moved = !others.is_empty() && !same.is_empty();
    plan.extend(others);
    plan.extend(same);
    moved
}

/// Puts each list's last entry right after its first: lists often hold
/// entries of several kinds in runs (folders, then files), and the entries
/// tried first decide whether the rest are tried at all.
fn try_ends_first(plan: &mut Vec<Planned>) {
    let key = |p: &Planned| match p {
        Planned::Click { list, .. } => list.clone(),
        Planned::Form { .. } => None,
    };
    let mut lists: Vec<(usize, String)> = Vec::new();
    for list in plan.iter().filter_map(key) {
        if !lists.contains(&list) {
            lists.push(list);
        }
    }
    for list in lists {
        let at: Vec<usize> = (0..plan.len())
            .filter(|&i| key(&plan[i]).as_ref() == Some(&list))
            .collect();
        if let [_, second, .., last] = at[..] {
            let entry = plan.remove(last);
            plan.insert(second, entry);
        }
    }
}

/// The shape of the place a page is ([`page_place`]), for counting visits.
fn page_shape(url: &Url, typed: &[String]) -> String {
    url_shape(&page_place(&page_key(url, typed)))
}

/// Whether the planned action's element is on the page now.
/// The element a planned press means in `snapshot`. Entries of one list
/// share their context menu: when the entry one was planned on is gone (the
/// list re-rendered, a folder opened), another entry of its kind serves.
fn find_pressed<'a>(
    snapshot: &'a Snapshot,
    role: &str,
    name: &str,
    occurrence: usize,
    press: Press,
) -> Option<&'a ElementInfo> {
    find_click(snapshot, role, name, occurrence).or_else(|| match press {
        Press::Main => None,
        Press::Context => (snapshot.elements.iter())
            .rev()
            .find(|e| e.role == role && e.group.is_some() && FieldGroup::of(e).is_none()),
    })
}

/// Whether what `action` uses first (its control, or the first click that
/// reveals it) sits in a dialog that is open in `snapshot`.
fn in_dialog(snapshot: &Snapshot, action: &Planned) -> bool {
    let first = match (action, action.via().first()) {
        (
            Planned::Click {
                role,
                name,
                occurrence,
                ..
            },
            _,
        ) if is_shown(snapshot, action) => find_click(snapshot, role, name, *occurrence),
        (Planned::Form { fingerprint, .. }, _) if is_shown(snapshot, action) => {
            find_form(snapshot, fingerprint).and_then(|fields| fields.first().copied())
        }
        (_, Some(step)) => find_click(snapshot, &step.role, &step.name, 0),
        (_, None) => None,
    };
    first.is_some_and(|e| e.dialog.is_some())
}

fn is_shown(snapshot: &Snapshot, action: &Planned) -> bool {
    match action {
        Planned::Click {
            role,
            name,
            occurrence,
            ..
        } => find_click(snapshot, role, name, *occurrence).is_some(),
        Planned::Form { fingerprint, .. } => find_form(snapshot, fingerprint).is_some(),
    }
}

/// Named controls shown in `after` that `before` did not show.
fn revealed(before: &Snapshot, after: &Snapshot) -> usize {
    let shown: HashSet<(&str, &str)> = before
        .elements
        .iter()
        .map(|e| (e.role.as_str(), e.name.as_str()))
        .collect();
    after
        .elements
        .iter()
        .filter(|e| !e.name.is_empty() && !shown.contains(&(e.role.as_str(), e.name.as_str())))
        .count()
}

/// How many named controls a click on `control` hid without showing
/// anything named instead, the control itself staying (a toggle): what
/// collapsing a sidebar does. Tabs, menu items and links switch views by
/// design and never count.
fn hid_navigation(before: &Snapshot, after: &Snapshot, control: &ElementInfo) -> usize {
    if !matches!(control.role.as_str(), "button" | "switch" | "clickable")
        || after.element(control.reference).is_none()
        || revealed(before, after) > 0
    {
        return 0;
    }
    let shown: HashSet<(&str, &str)> = after
        .elements
        .iter()
        .map(|e| (e.role.as_str(), e.name.as_str()))
        .collect();
    before
        .elements
        .iter()
        .filter(|e| !e.name.is_empty() && !shown.contains(&(e.role.as_str(), e.name.as_str())))
        .count()
}

/// A click on the button that closes `dialog` without doing anything.
fn dismissal_in(snapshot: &Snapshot, dialog: u32) -> Option<Planned> {
    let cancel = snapshot
        .elements
        .iter()
        .find(|e| e.dialog == Some(dialog) && e.role == "button" && is_dismissal(&e.name))?;
    let occurrence = snapshot
        .elements
        .iter()
        .take_while(|e| e.reference != cancel.reference)
        .filter(|e| FieldGroup::of(e).is_none() && e.role == cancel.role && e.name == cancel.name)
        .count();
    Some(Planned::Click {
        role: cancel.role.clone(),
        name: cancel.name.clone(),
        occurrence,
        press: Press::Main,
        list: None,
        via: Vec::new(),
        layers: Layers::of(snapshot),
    })
}

/// Whether the browser is still on `page`: an in-page anchor (`#shipping`,
/// set by a tab) does not count as leaving it.
fn is_same_page(now: &str, page: &Url) -> bool {
    now == page.as_str() || is_in_page_link(now, page)
}

#[cfg(test)]
mod tests {
    use super::super::fake::{
        Effect, FakeBrowser, FakeElement, button, element, field, link, submit,
    };
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
    async fn a_page_a_button_opened_is_visited_before_what_it_links_to() {
        // "Browse" opens the catalog; the catalog's entries are two steps
        // from the start, like the team page behind "About", not one.
        let home = vec![
            link("About", "https://shop.test/about"),
            button(
                "Browse",
                Effect::Navigate("https://shop.test/catalog".into()),
            ),
        ];
        let catalog = vec![link("Lamp", "https://shop.test/catalog/lamp")];
        let about = vec![link("Team", "https://shop.test/about/team")];
        let browser = FakeBrowser::new([
            ("https://shop.test/", home),
            ("https://shop.test/catalog", catalog),
            ("https://shop.test/catalog/lamp", vec![]),
            ("https://shop.test/about", about),
            ("https://shop.test/about/team", vec![]),
        ]);
        run(&browser, &ExplorerConfig::new("https://shop.test/")).await;
        let visits = opened(&browser);
        let at = |url: &str| visits.iter().position(|v| v == url).expect(url);
        assert!(
            at("https://shop.test/catalog") < at("https://shop.test/catalog/lamp"),
            "{visits:?}"
        );
        assert!(
            at("https://shop.test/about/team") < at("https://shop.test/catalog/lamp"),
            "the later find of equal depth goes first: {visits:?}"
        );
    }

    #[tokio::test]
    async fn a_button_with_the_address_of_another_page_is_followed_as_a_link() {
        let mut flows = button("Flows", Effect::Navigate("https://shop.test/flows".into()));
        flows.info.href = Some("https://shop.test/flows".into());
        // The same place with another query is this page's own tab.
        let mut runs = button(
            "Runs",
            Effect::Navigate("https://shop.test/?tab=runs".into()),
        );
        runs.info.href = Some("https://shop.test/?tab=runs".into());
        let browser = FakeBrowser::new([
            ("https://shop.test/", vec![flows, runs]),
            ("https://shop.test/?tab=runs", vec![]),
            ("https://shop.test/flows", vec![]),
        ]);
        run(&browser, &ExplorerConfig::new("https://shop.test/")).await;
        assert_eq!(clicks(&browser), ["click Runs"]);
        let log = browser.log();
        let loads = |url: &str| log.iter().filter(|l| *l == &format!("open {url}")).count();
        assert_eq!(loads("https://shop.test/flows"), 1, "{log:?}");
    }

    #[tokio::test]
    async fn a_page_that_sends_the_browser_on_is_the_page_it_lands_on() {
        let period = button(
            "Past day",
            Effect::Reveal(vec![element("option", "Past hour", Effect::Nothing)]),
        );
        let dashboard = vec![
            link("Dashboard", "https://app.test/dashboard"),
            period,
            button("Refresh", Effect::Nothing),
        ];
        let browser = FakeBrowser::new([
            ("https://app.test/", vec![]),
            ("https://app.test/dashboard", dashboard),
        ])
        .redirecting("https://app.test/", "https://app.test/dashboard");
        run(&browser, &ExplorerConfig::new("https://app.test/")).await;
        let log = browser.log();
        let opens: Vec<&String> = log.iter().filter(|l| l.starts_with("open ")).collect();
        assert_eq!(
            opens,
            ["open https://app.test/"],
            "no reload after each action, and no second visit: {log:?}"
        );
        assert!(
            log.contains(&"click Past hour".to_owned()),
            "what a click there revealed is tried: {log:?}"
        );
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

    /// What was typed and clicked, in order.
    fn typed_and_clicked(browser: &FakeBrowser) -> Vec<String> {
        browser
            .log()
            .into_iter()
            .filter(|l| l.starts_with("type ") || l.starts_with("click "))
            .collect()
    }

    fn clicks(browser: &FakeBrowser) -> Vec<String> {
        browser
            .log()
            .into_iter()
            .filter(|l| l.starts_with("click ") || l.starts_with("double-click "))
            .collect()
    }

    #[tokio::test]
    async fn a_menu_is_opened_again_for_each_of_its_items() {
        let menu = button(
            "Actions",
            Effect::Reveal(vec![
                element(
                    "menuitem",
                    "Export",
                    Effect::Navigate("https://shop.test/export".into()),
                ),
                element(
                    "menuitem",
                    "Usage",
                    Effect::Navigate("https://shop.test/usage".into()),
                ),
            ]),
        );
        let browser = FakeBrowser::new([
            ("https://shop.test/", vec![menu]),
            ("https://shop.test/export", vec![]),
            ("https://shop.test/usage", vec![]),
        ]);
        run(&browser, &ExplorerConfig::new("https://shop.test/")).await;
        assert_eq!(
            clicks(&browser),
            [
                "click Actions",
                "click Export",
                "click Actions",
                "click Usage"
            ]
        );
    }

    #[tokio::test]
    async fn a_click_that_hides_the_navigation_is_undone() {
        let nav = ["Runs", "Models", "Settings"];
        let mut page = vec![button(
            "Toggle sidebar",
            Effect::Toggle(nav.iter().map(|n| (*n).to_owned()).collect()),
        )];
        for name in nav {
            page.push(button(name, Effect::Nothing).sending(&format!(
                "GET https://shop.test/api/{}",
                name.to_lowercase()
            )));
        }
        let browser = FakeBrowser::new([("https://shop.test/", page)]);
        let (report, events) = run(&browser, &ExplorerConfig::new("https://shop.test/")).await;
        assert_eq!(
            clicks(&browser),
            [
                "click Toggle sidebar",
                "click Toggle sidebar",
                "click Runs",
                "click Models",
                "click Settings"
            ]
        );
        assert_eq!(report.undone, ["Toggle sidebar"]);
        assert!(events.contains(&ExplorerEvent::Undo {
            name: "Toggle sidebar".into(),
            hidden: 3
        }));
    }

    #[tokio::test]
    async fn a_mode_the_app_switches_out_of_is_chosen_again() {
        let root = "https://shop.test/";
        // Every page's navigation: the two options and the places of each mode.
        let options = |page: Vec<FakeElement>| {
            let mut all = vec![
                button("GenAI", Effect::Mode(String::new())).in_list(0),
                button("Model training", Effect::Mode("ml".into())).in_list(0),
                link("Prompts", "https://shop.test/prompts").only_in(""),
                link("Models", "https://shop.test/models").only_in("ml"),
            ];
            all.extend(page);
            all
        };
        let browser = FakeBrowser::new([
            (
                root,
                options(vec![
                    // Opens the demo, in the default mode.
                    button(
                        "Start demo",
                        Effect::NavigateInMode("https://shop.test/demo".into(), String::new()),
                    ),
                    link("Experiment", "https://shop.test/experiments/1"),
                ]),
            ),
            ("https://shop.test/prompts", options(Vec::new())),
            ("https://shop.test/models", options(Vec::new())),
            // The demo's URL holds its mode: its navigation stays the
            // default mode's, and choosing the other mode opens another page.
            (
                "https://shop.test/demo",
                vec![
                    button("GenAI", Effect::Nothing).in_list(0),
                    button(
                        "Model training",
                        Effect::NavigateInMode("https://shop.test/demo/ml".into(), "ml".into()),
                    )
                    .in_list(0),
                    link("Prompts", "https://shop.test/prompts"),
                    button("Traces", Effect::Nothing).sending("GET https://shop.test/api/traces"),
                    button("Judges", Effect::Nothing).sending("GET https://shop.test/api/judges"),
                ],
            ),
            ("https://shop.test/demo/ml", options(Vec::new())),
            (
                "https://shop.test/experiments/1",
                options(vec![
                    link("Traces", "https://shop.test/experiments/1/traces").only_in(""),
                    link("run-1", "https://shop.test/experiments/1/runs/a").only_in("ml"),
                ]),
            ),
            ("https://shop.test/experiments/1/traces", Vec::new()),
            ("https://shop.test/experiments/1/runs/a", Vec::new()),
        ]);
        let (report, events) = run(&browser, &ExplorerConfig::new(root)).await;
        assert!(
            opened(&browser).contains(&"https://shop.test/experiments/1/runs/a".to_owned()),
            "{:?}",
            browser.log()
        );
        assert_eq!(report.modes_kept, ["Model training"]);
        // Chosen on the start page, again there after the demo, and once on
        // the demo, which is then left in its own mode.
        let chosen = clicks(&browser)
            .iter()
            .filter(|c| *c == "click Model training")
            .count();
        assert_eq!(chosen, 3, "{:?}", browser.log());
        assert!(
            browser
                .requests()
                .contains(&"GET https://shop.test/api/judges".to_owned()),
            "{:?}",
            browser.log()
        );
        assert!(opened(&browser).contains(&"https://shop.test/demo/ml".to_owned()));
        assert!(events.contains(&ExplorerEvent::KeepMode {
            name: "Model training".into()
        }));
        assert!(
            report.left_out().contains(
                &"the app switched out of \"Model training\" 1 time(s), so it was chosen again"
                    .to_owned()
            )
        );
    }

    #[tokio::test]
    async fn list_entries_a_click_only_selects_are_double_clicked() {
        let rows = vec![
            element(
                "row",
                "report.csv",
                Effect::OpenOnDoubleClick("https://shop.test/files/1".into()),
            )
            .in_list(1),
        ];
        let browser = FakeBrowser::new([
            ("https://shop.test/files", rows),
            ("https://shop.test/files/1", vec![]),
        ])
        .loading(
            "https://shop.test/files/1",
            &["GET https://shop.test/api/files/1"],
        );
        run(&browser, &ExplorerConfig::new("https://shop.test/files")).await;
        assert_eq!(
            clicks(&browser),
            ["click report.csv", "double-click report.csv"]
        );
        assert!(
            browser
                .requests()
                .contains(&"GET https://shop.test/api/files/1".to_owned())
        );
    }

    #[tokio::test]
    async fn a_list_is_left_after_two_entries_bring_nothing_new_but_not_while_they_do() {
        let mut page = Vec::new();
        for n in 1..=6 {
            page.push(button(&format!("Reorder column {n}"), Effect::Nothing).in_list(1));
        }
        for topic in ["sales", "stock", "staff", "costs"] {
            page.push(
                element("menuitem", &format!("Report on {topic}"), Effect::Nothing)
                    .in_list(2)
                    .sending(&format!("GET https://shop.test/api/{topic}")),
            );
        }
        let browser = FakeBrowser::new([("https://shop.test/", page)]);
        let (report, _) = run(&browser, &ExplorerConfig::new("https://shop.test/")).await;
        let clicked = clicks(&browser);
        assert_eq!(
            clicked.iter().filter(|c| c.contains("Reorder")).count(),
            2,
            "{clicked:?}"
        );
        assert_eq!(clicked.iter().filter(|c| c.contains("Report")).count(), 4);
        assert_eq!(report.entries_left, 4);
        assert!(
            report
                .left_out()
                .iter()
                .any(|l| l.starts_with("4 list entries"))
        );
    }

    #[tokio::test]
    async fn list_entries_that_show_panels_but_ask_nothing_are_left_after_two() {
        // A settings editor: forty tabs, each showing a panel of its own
        // controls, none asking the server for anything.
        let tabs: Vec<_> = (0..40)
            .map(|n| {
                let panel = vec![button(&format!("Option {n}"), Effect::Nothing)];
                element("tab", &format!("Plugin{n:02}"), Effect::Reveal(panel)).in_list(3)
            })
            .collect();
        let browser = FakeBrowser::new([("https://shop.test/settings", tabs)]);
        let (report, _) = run(&browser, &ExplorerConfig::new("https://shop.test/settings")).await;
        let clicked = clicks(&browser);
        let tabs = clicked.iter().filter(|c| c.contains("Plugin")).count();
        assert!(tabs <= 3, "{clicked:?}");
        assert!(report.entries_left >= 37, "{report:?}");
    }

    #[tokio::test]
    async fn a_list_is_sampled_at_both_ends() {
        let mut rows = Vec::new();
        for name in ["Reports", "Design"] {
            rows.push(element("row", name, Effect::Nothing).in_list(1));
        }
        for name in ["a.csv", "b.csv", "c.csv"] {
            rows.push(
                element("row", name, Effect::Nothing)
                    .in_list(1)
                    .sending(&format!("GET https://shop.test/api/files/{name}")),
            );
        }
        let browser = FakeBrowser::new([("https://shop.test/files", rows)]);
        run(&browser, &ExplorerConfig::new("https://shop.test/files")).await;
        let clicked: Vec<String> = clicks(&browser)
            .into_iter()
            .filter(|c| c.starts_with("click "))
            .collect();
        assert_eq!(
            clicked[..2],
            ["click Reports".to_owned(), "click c.csv".to_owned()]
        );
        assert!(
            browser
                .requests()
                .contains(&"GET https://shop.test/api/files/c.csv".to_owned())
        );
    }

    #[tokio::test]
    async fn a_form_that_grows_a_row_when_sent_is_not_sent_again() {
        // A list editor: "Add item" adds a row of the same fields, numbered
        // anew, and so on as long as anyone presses it.
        let mut rows = Vec::new();
        for n in (0..12).rev() {
            let mut add = button("Add item", Effect::Reveal(rows));
            add.info.form = Some(0);
            add.info.input_type = Some("submit".into());
            rows = vec![
                field(0, "textbox", "text", &format!("items_{n}_name"), "Name"),
                add,
            ];
        }
        let browser = FakeBrowser::new([("https://shop.test/settings", rows)]);
        let (report, _) = run(&browser, &ExplorerConfig::new("https://shop.test/settings")).await;
        let added = clicks(&browser)
            .iter()
            .filter(|c| *c == "click Add item")
            .count();
        assert!(added <= 2, "{:?}", browser.log());
        assert!(report.forms_submitted <= 2, "{report:?}");
    }

    #[tokio::test]
    async fn a_state_whose_actions_ask_nothing_goes_behind_the_others() {
        // One URL: a table of shortcuts (a panel's state) whose cells ask
        // the server for nothing, planned before the Help menu.
        let cells: Vec<_> = (0..20)
            .map(|n| element("clickable", &format!("Ctrl + {n}"), Effect::Nothing))
            .collect();
        let about = element("menuitem", "About", Effect::Nothing)
            .sending("GET https://shop.test/api/about");
        let page = vec![
            button("Shortcuts", Effect::Reveal(cells)),
            button("Help", Effect::Reveal(vec![about])),
        ];
        let browser = FakeBrowser::new([("https://shop.test/", page)]);
        let mut config = ExplorerConfig::new("https://shop.test/");
        config.max_actions = 10;
        run(&browser, &config).await;
        assert!(
            browser
                .requests()
                .contains(&"GET https://shop.test/api/about".to_owned()),
            "{:?}",
            browser.log()
        );
    }

    #[tokio::test]
    async fn a_modal_form_is_submitted_by_its_footer_button() {
        let mut name = field(0, "textbox", "text", "name", "Folder name");
        name.info.dialog = Some(0);
        let dialog = vec![
            name,
            button("Cancel", Effect::Rerender).in_dialog(0),
            button("Create folder", Effect::Nothing)
                .in_dialog(0)
                .sending("POST https://shop.test/api/folders"),
        ];
        let browser = FakeBrowser::new([(
            "https://shop.test/",
            vec![button("New folder", Effect::Reveal(dialog))],
        )]);
        let (report, _) = run(&browser, &ExplorerConfig::new("https://shop.test/")).await;
        let log = browser.log();
        let typed = log
            .iter()
            .position(|l| l.starts_with("type name="))
            .expect("name typed");
        let created = log
            .iter()
            .position(|l| l == "click Create folder")
            .expect("submitted");
        assert!(typed < created, "{log:?}");
        assert!(!log.contains(&"click Cancel".to_owned()), "{log:?}");
        assert_eq!(report.forms_submitted, 1);
        assert_eq!(browser.requests(), ["POST https://shop.test/api/folders"]);
    }

    /// A radio of form 0, in dialog 0.
    fn radio(field_name: &str, label: &str, checked: bool, effect: Effect) -> FakeElement {
        let mut radio = field(0, "radio", "radio", field_name, label).in_dialog(0);
        radio.info.checked = Some(checked);
        radio.effect = effect;
        radio
    }

    #[tokio::test]
    async fn a_form_keeps_the_choice_its_radio_group_has() {
        // "JSON" would swap the form's fields for an editor.
        let dialog = vec![
            field(0, "textbox", "text", "name", "Name").in_dialog(0),
            radio("method", "Form", true, Effect::Nothing),
            radio("method", "JSON", false, Effect::Replace(Vec::new())),
            field(0, "textbox", "url", "source", "Source").in_dialog(0),
            submit(0, "Create")
                .in_dialog(0)
                .sending("POST https://shop.test/api/servers"),
        ];
        let browser = FakeBrowser::new([(
            "https://shop.test/",
            vec![button("New server", Effect::Reveal(dialog))],
        )]);
        let (report, _) = run(&browser, &ExplorerConfig::new("https://shop.test/")).await;
        let log = browser.log();
        assert!(!log.iter().any(|l| l.contains("JSON")), "{log:?}");
        assert!(
            log.contains(&"type source=https://example.com/".to_owned()),
            "{log:?}"
        );
        assert_eq!(report.forms_submitted, 1);
        assert_eq!(browser.requests(), ["POST https://shop.test/api/servers"]);
    }

    #[tokio::test]
    async fn a_form_that_asks_for_other_fields_once_a_choice_is_made_is_filled_to_the_end() {
        let create = || {
            submit(0, "Create folder")
                .in_dialog(0)
                .sending("POST https://shop.test/api/folders")
        };
        // Choosing "Empty folder" renders the form anew, with a description.
        let chosen = vec![
            field(0, "textbox", "text", "name", "Name").in_dialog(0),
            radio("kind", "Empty folder", true, Effect::Nothing),
            radio("kind", "Copy of a folder", false, Effect::Nothing),
            field(0, "textbox", "text", "description", "Description").in_dialog(0),
            create(),
        ];
        let dialog = vec![
            field(0, "textbox", "text", "name", "Name").in_dialog(0),
            radio("kind", "Empty folder", false, Effect::Replace(chosen)),
            radio("kind", "Copy of a folder", false, Effect::Nothing),
            create(),
        ];
        let browser = FakeBrowser::new([(
            "https://shop.test/",
            vec![button("New folder", Effect::Reveal(dialog))],
        )]);
        let (report, _) = run(&browser, &ExplorerConfig::new("https://shop.test/")).await;
        let actions = typed_and_clicked(&browser);
        assert_eq!(
            actions,
            [
                "click New folder",
                "type name=Ada Lovelace",
                "click Empty folder",
                // The new rendering's name is empty again.
                "type name=Ada Lovelace",
                "type description=Hello from the ar explorer.",
                "click Create folder",
            ]
        );
        assert_eq!(report.forms_submitted, 1);
        assert_eq!(report.failures, 0);
        assert_eq!(browser.requests(), ["POST https://shop.test/api/folders"]);
    }

    #[tokio::test]
    async fn a_field_the_form_refuses_is_changed_until_the_form_is_sent() {
        let mut create = submit(0, "Create")
            .in_dialog(0)
            .sending("POST https://shop.test/api/prompts");
        create.effect = Effect::NumbersOnly(vec!["temperature".into()]);
        let dialog = vec![
            field(0, "textbox", "text", "name", "Name").in_dialog(0),
            field(0, "textbox", "text", "temperature", "Temperature").in_dialog(0),
            create,
        ];
        let browser = FakeBrowser::new([(
            "https://shop.test/",
            vec![button("New prompt", Effect::Reveal(dialog))],
        )]);
        let (report, events) = run(&browser, &ExplorerConfig::new("https://shop.test/")).await;
        let actions = typed_and_clicked(&browser);
        assert_eq!(
            actions,
            [
                "click New prompt",
                "type name=Ada Lovelace",
                "type temperature=test",
                "click Create",
                // Its checks may still have been running: once more as it is.
                "click Create",
                // Refused beside the field: a plain word, then a number.
                "type temperature=explorer1",
                "click Create",
                "type temperature=1",
                "click Create",
            ]
        );
        assert_eq!(browser.requests(), ["POST https://shop.test/api/prompts"]);
        let resubmit = |value: &str| ExplorerEvent::Resubmit {
            form: "Create".into(),
            changed: vec![Revision::Typed {
                field: "Temperature".into(),
                text: value.into(),
            }],
        };
        assert!(events.contains(&resubmit("explorer1")), "{events:?}");
        assert!(events.contains(&resubmit("1")), "{events:?}");
        assert_eq!(
            resubmit("1").to_string(),
            "submit \"Create\" again, changing what it refused: \"Temperature\" to \"1\""
        );
        assert_eq!(report.forms_submitted, 1);
    }

    #[tokio::test]
    async fn a_group_of_boxes_the_form_wants_one_of_gets_its_first_checked() {
        let mut create = submit(0, "Create")
            .in_dialog(0)
            .sending("POST https://shop.test/api/webhooks");
        create.effect = Effect::AtLeastOne(vec!["created".into(), "deleted".into()]);
        let dialog = vec![
            field(0, "textbox", "url", "url", "URL").in_dialog(0),
            field(0, "checkbox", "checkbox", "created", "Run created").in_dialog(0),
            field(0, "checkbox", "checkbox", "deleted", "Run deleted").in_dialog(0),
            create,
        ];
        let browser = FakeBrowser::new([(
            "https://shop.test/",
            vec![button("New webhook", Effect::Reveal(dialog))],
        )]);
        let (_, events) = run(&browser, &ExplorerConfig::new("https://shop.test/")).await;
        assert_eq!(browser.requests(), ["POST https://shop.test/api/webhooks"]);
        let checked = ExplorerEvent::Resubmit {
            form: "Create".into(),
            changed: vec![Revision::Checked {
                field: "Run created".into(),
            }],
        };
        assert!(events.contains(&checked), "{events:?}");
        assert_eq!(
            checked.to_string(),
            "submit \"Create\" again, changing what it refused: \"Run created\" checked"
        );
        assert!(!clicks(&browser).contains(&"click Run deleted".to_owned()));
    }

    #[tokio::test]
    async fn a_confirmation_of_something_destructive_is_cancelled() {
        let confirm = vec![
            button("Cancel", Effect::Rerender).in_dialog(0),
            button("Delete", Effect::Nothing)
                .in_dialog(0)
                .sending("DELETE https://shop.test/api/files/1"),
        ];
        let browser = FakeBrowser::new([(
            "https://shop.test/",
            vec![button("Manage file", Effect::Reveal(confirm))],
        )]);
        let (report, _) = run(&browser, &ExplorerConfig::new("https://shop.test/")).await;
        assert_eq!(clicks(&browser), ["click Manage file", "click Cancel"]);
        assert!(browser.requests().is_empty());
        assert_eq!(report.skipped_destructive, ["Delete"]);
    }

    #[tokio::test]
    async fn links_that_differ_in_where_to_return_lead_to_one_page() {
        let home = vec![
            link("Settings", "https://shop.test/#/settings?returnTo=%2Fa"),
            link(
                "Settings here",
                "https://shop.test/#/settings?returnTo=%2Fb",
            ),
        ];
        let browser = FakeBrowser::new([
            ("https://shop.test/", home),
            ("https://shop.test/#/settings?returnTo=%2Fa", vec![]),
            ("https://shop.test/#/settings?returnTo=%2Fb", vec![]),
        ]);
        let (report, _) = run(&browser, &ExplorerConfig::new("https://shop.test/")).await;
        assert_eq!(
            opened(&browser),
            [
                "https://shop.test/",
                "https://shop.test/#/settings?returnTo=%2Fa",
            ]
        );
        assert_eq!(report.pages_visited, 2);
    }

    #[tokio::test]
    async fn pages_of_a_known_shape_are_visited_while_they_bring_something_new() {
        let mut home = Vec::new();
        let mut pages = Vec::new();
        for n in 1..=5 {
            let url: &'static str =
                Box::leak(format!("https://shop.test/items/{n}").into_boxed_str());
            home.push(link(&format!("Item {n}"), url));
            pages.push((url, vec![]));
        }
        pages.push(("https://shop.test/", home));
        let browser = FakeBrowser::new(pages.clone())
            .loading(
                "https://shop.test/items/1",
                &["GET https://shop.test/api/items/1"],
            )
            .loading(
                "https://shop.test/items/2",
                &["GET https://shop.test/api/items/2"],
            );
        let mut config = ExplorerConfig::new("https://shop.test/");
        config.per_shape = 5;
        let (report, _) = run(&browser, &config).await;
        assert_eq!(report.pages_visited, 3, "{:?}", opened(&browser));
        assert_eq!(report.pages_same_shape, 3);

        // The second item page asks for something the first did not: keep going.
        let browser = FakeBrowser::new(pages)
            .loading(
                "https://shop.test/items/1",
                &["GET https://shop.test/api/items/1"],
            )
            .loading(
                "https://shop.test/items/2",
                &["GET https://shop.test/api/items/2?related"],
            );
        let (report, _) = run(&browser, &config).await;
        assert_eq!(report.pages_visited, 4, "{:?}", opened(&browser));
    }

    /// A site whose `/blocks/catalog` lists `entries` block types by name,
    /// each with a page and a page to create one, both asking for the type
    /// by its name; and whose `/settings` lists five sections, each asking
    /// for its own thing by name.
    fn catalog_site(entries: usize) -> FakeBrowser {
        let leak = |text: String| -> &'static str { Box::leak(text.into_boxed_str()) };
        let mut catalog = Vec::new();
        let mut pages = Vec::new();
        let mut loads = Vec::new();
        for n in 0..entries {
            let slug = format!("type-{}", char::from(b'a' + (n % 26) as u8)).repeat(1 + n / 26);
            let api = leak(format!("GET https://app.test/api/block_types/slug/{slug}"));
            for url in [
                leak(format!("https://app.test/blocks/catalog/{slug}")),
                leak(format!("https://app.test/blocks/catalog/{slug}/create")),
            ] {
                catalog.push(link(&slug, url));
                pages.push((url, vec![]));
                loads.push((url, api));
            }
        }
        let mut settings = Vec::new();
        for section in ["users", "teams", "billing", "hooks", "tokens"] {
            let url = leak(format!("https://app.test/settings/{section}"));
            settings.push(link(section, url));
            pages.push((url, vec![]));
            loads.push((url, leak(format!("GET https://app.test/api/{section}"))));
        }
        pages.push(("https://app.test/blocks/catalog", catalog));
        pages.push(("https://app.test/settings", settings));
        pages.push((
            "https://app.test/",
            vec![
                link("Catalog", "https://app.test/blocks/catalog"),
                link("Settings", "https://app.test/settings"),
            ],
        ));
        let mut browser = FakeBrowser::new(pages);
        for (url, api) in loads {
            browser = browser.loading(url, &[api]);
        }
        browser
    }

    #[tokio::test]
    async fn a_catalogs_entries_are_left_once_two_in_a_row_bring_nothing_new() {
        let browser = catalog_site(40);
        let mut config = ExplorerConfig::new("https://app.test/");
        config.max_pages = 200;
        let (report, _) = run(&browser, &config).await;
        let visits = opened(&browser);
        let visited = |wanted: &dyn Fn(&str) -> bool| {
            let mut pages: Vec<&String> = visits.iter().filter(|u| wanted(u)).collect();
            pages.sort();
            pages.dedup();
            pages.len()
        };
        let entry =
            |u: &str| u.starts_with("https://app.test/blocks/catalog/") && !u.ends_with("/create");
        assert_eq!(
            visited(&entry),
            3,
            "the first, then two that asked for nothing else: {visits:?}"
        );
        assert_eq!(visited(&|u| u.ends_with("/create")), 3, "{visits:?}");
        assert_eq!(
            visited(&|u| u.starts_with("https://app.test/settings/")),
            5,
            "a menu of sections is no catalog, whatever each asks for: {visits:?}"
        );
        assert_eq!(report.pages_same_family, 74);
        assert!(
            report
                .left_out()
                .iter()
                .any(|l| l.starts_with("74 catalog pages left")),
            "{:?}",
            report.left_out()
        );
    }

    #[tokio::test]
    async fn a_dull_page_is_put_off_while_others_wait_then_finished() {
        let mut first: Vec<_> = (1..=10)
            .map(|n| button(&format!("Option {n}"), Effect::Nothing))
            .collect();
        first.push(link("Reports", "https://shop.test/reports"));
        let reports =
            vec![button("Refresh", Effect::Nothing).sending("GET https://shop.test/api/reports")];
        let browser = FakeBrowser::new([
            ("https://shop.test/", first),
            ("https://shop.test/reports", reports),
        ]);
        let config = ExplorerConfig::new("https://shop.test/");
        let (report, events) = run(&browser, &config).await;
        assert_eq!(report.stopped, StopReason::Exhausted);
        let clicked = clicks(&browser);
        assert_eq!(clicked.len(), 11, "{clicked:?}");
        let refresh = clicked.iter().position(|c| c == "click Refresh").unwrap();
        assert_eq!(
            refresh, PAGE_PATIENCE,
            "the other page came first: {clicked:?}"
        );
        assert!(
            events
                .iter()
                .any(|e| e.to_string() == "return to https://shop.test/ for its 4 untried actions"),
            "{events:?}"
        );
        assert_eq!(report.actions_left, 0);
        assert!(report.left_out().is_empty(), "{:?}", report.left_out());
    }

    #[tokio::test]
    async fn an_app_that_never_changes_its_url_is_explored_to_the_end() {
        let page: Vec<_> = (1..=10)
            .map(|n| button(&format!("Panel {n}"), Effect::Nothing))
            .collect();
        let browser = FakeBrowser::new([("https://shop.test/", page)]);
        let config = ExplorerConfig::new("https://shop.test/");
        let (report, _) = run(&browser, &config).await;
        assert_eq!(report.stopped, StopReason::Exhausted);
        assert_eq!(
            clicks(&browser).len(),
            10,
            "no page waits, so none is put off"
        );
    }

    #[tokio::test]
    async fn context_menus_at_both_ends_of_a_list_are_opened_and_each_item_chosen() {
        let rename = element("menuitem", "Rename…", Effect::Nothing)
            .sending("PATCH https://shop.test/api/contents/a.txt");
        let checkpoints = element("menuitem", "Show Checkpoints", Effect::Nothing)
            .sending("GET https://shop.test/api/contents/a.txt/checkpoints");
        let rows: Vec<_> = ["a.txt", "b.txt", "c.txt"]
            .iter()
            .map(|name| {
                element("listitem", name, Effect::Nothing)
                    .in_list(1)
                    .with_context_menu(vec![rename.clone(), checkpoints.clone()])
            })
            .collect();
        let browser = FakeBrowser::new([("https://shop.test/", rows)]);
        let config = ExplorerConfig::new("https://shop.test/");
        let (_, events) = run(&browser, &config).await;
        let log = browser.log();
        let contexts = log.iter().filter(|l| l.starts_with("context ")).count();
        assert_eq!(contexts, 2, "at both ends of the list: {log:?}");
        assert!(log.contains(&"click Rename…".to_owned()), "{log:?}");
        assert!(
            log.contains(&"click Show Checkpoints".to_owned()),
            "{log:?}"
        );
        assert!(
            events
                .iter()
                .any(|e| e.to_string() == "open the context menu of listitem \"a.txt\""),
            "{events:?}"
        );
    }

    #[tokio::test]
    async fn a_long_menu_of_alike_choices_is_a_list() {
        let languages: Vec<_> = (0..40)
            .map(|n| element("menuitem", &format!("Tongue{n:02}"), Effect::Nothing).in_list(7))
            .collect();
        let browser = FakeBrowser::new([(
            "https://shop.test/",
            vec![button("Python", Effect::Reveal(languages))],
        )]);
        let config = ExplorerConfig::new("https://shop.test/");
        let (report, _) = run(&browser, &config).await;
        let chosen = clicks(&browser)
            .iter()
            .filter(|c| c.starts_with("click Tongue"))
            .count();
        assert!(chosen <= 3, "{:?}", clicks(&browser));
        assert!(report.entries_left >= 37, "{report:?}");
    }

    #[tokio::test]
    async fn a_dialog_left_open_is_closed_before_the_page_behind_it_is_used() {
        let failed = button(
            "Open from Path…",
            Effect::Reveal(vec![button("Close", Effect::Nothing).in_dialog(1)]),
        );
        let help = button("Help", Effect::Nothing).sending("GET https://shop.test/api/help");
        let browser = FakeBrowser::new([("https://shop.test/", vec![failed, help])]);
        run(&browser, &ExplorerConfig::new("https://shop.test/")).await;
        let log = browser.log();
        let escape = log.iter().position(|l| l == "press Escape");
        let help = log.iter().position(|l| l == "click Help");
        assert!(escape.is_some() && escape < help, "{log:?}");
    }

    #[tokio::test]
    async fn what_a_vanished_control_revealed_is_dropped_at_once() {
        // Choosing a language renames the picker: its other choices can no
        // longer be reached through it, and are not tried one by one.
        let picker = button(
            "Python",
            Effect::Reveal(vec![
                // The menu closes and the picker shows the choice.
                element(
                    "menuitem",
                    "Cobol",
                    Effect::Toggle(vec!["Python".into(), "Dart".into(), "Elm".into()]),
                ),
                element("menuitem", "Dart", Effect::Nothing),
                element("menuitem", "Elm", Effect::Nothing),
            ]),
        );
        let browser = FakeBrowser::new([("https://shop.test/", vec![picker])]);
        let (report, _) = run(&browser, &ExplorerConfig::new("https://shop.test/")).await;
        assert_eq!(report.actions_gone, 2, "{report:?}");
    }

    #[tokio::test]
    async fn an_app_without_context_menus_is_not_asked_again_and_again() {
        let rows = |prefix: &str, group: u32| -> Vec<FakeElement> {
            (1..=3)
                .map(|n| element("row", &format!("{prefix} {n}"), Effect::Nothing).in_list(group))
                .collect()
        };
        let mut first = rows("Run", 1);
        first.push(link("Models", "https://shop.test/models"));
        let browser = FakeBrowser::new([
            ("https://shop.test/", first),
            ("https://shop.test/models", rows("Model", 2)),
        ]);
        run(&browser, &ExplorerConfig::new("https://shop.test/")).await;
        let contexts = browser
            .log()
            .iter()
            .filter(|l| l.starts_with("context "))
            .count();
        assert_eq!(contexts, CONTEXT_PATIENCE, "{:?}", browser.log());
    }
}
