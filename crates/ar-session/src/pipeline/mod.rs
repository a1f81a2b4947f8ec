//! The ingest/doc pipeline shared by `ar import`, `ar proxy` and the `ar <url>`
//! session: one owner of the endpoint store (which keeps the documenter as its
//! endpoints' evidence) and, optionally, an archive, fed one flow at a time, able to render
//! `openapi.yaml`, `openapi.json` and `API.md` at any moment.
//!
//! Two ways to drive it:
//! - a plain struct ([`Pipeline`]) the caller feeds with [`Pipeline::ingest`]
//!   (what `ar import` does);
//! - [`live::LiveDocs`], which wraps it, rewrites the documents at most once
//!   a second and at the end, and reports each new endpoint (what `ar proxy`
//!   does, on its capture thread).

pub mod capture_threads;
pub mod drift;
pub mod enrich;
pub mod live;
pub mod redocument;
pub(crate) mod write;

use std::fmt;
use std::path::PathBuf;

use anyhow::Context as _;
use ar_diff::{Baseline, Drift};
use ar_openapi::{Annotation, Documenter, Enrichment, Options, Redactor};
use ar_store::Flow;
use ar_store::scope::{Scope, ScopeConfig, ScopeDecision};
use ar_store::store::{EndpointStore, StoreConfig};
use ar_store::template::{Overrides, Pattern};

pub use drift::DriftDocuments;
pub use write::Documents;

/// Where the pipeline's flows are archived, if anywhere (the `ar <url>`
/// session archives through the pipeline; `ar import` does not re-archive).
pub trait Archive: Send {
    /// Appends one flow; errors are reported, never silently dropped.
    fn append(&mut self, flow: &Flow) -> anyhow::Result<()>;
}

/// What the pipeline needs to know up front.
#[derive(Debug, Clone)]
pub struct PipelineConfig {
    /// Which hosts and paths are documented.
    pub scope: ScopeConfig,
    /// Store limits.
    pub store: StoreConfig,
    /// Redact secrets from the outputs (default on).
    pub redact: bool,
    /// Title, version, base URL of the spec.
    pub options: Options,
    /// The published spec each in-scope flow is held against (`--against`), if any.
    pub against: Option<Baseline>,
}

impl Default for PipelineConfig {
    fn default() -> Self {
        Self {
            scope: ScopeConfig::default(),
            store: StoreConfig::default(),
            redact: true,
            options: Options::default(),
            against: None,
        }
    }
}

impl PipelineConfig {
    /// A scope from `--scope HOST,...`: the first host's site and every listed
    /// host are in scope; with no hosts, every host except trackers.
    pub fn with_scope_hosts(mut self, hosts: &[String]) -> Self {
        let hosts: Vec<String> = hosts
            .iter()
            .map(|h| h.trim().to_string())
            .filter(|h| !h.is_empty())
            .collect();
        if let Some(first) = hosts.first() {
            self.scope.target = Some(first.trim_start_matches("*.").to_string());
            self.scope.extra_hosts = hosts;
        }
        self
    }

    /// User templates (`--template`, checked by [`read_templates`]): paths
    /// matching one are templated by it, whatever the learnt rules say.
    pub fn with_templates(mut self, patterns: &[String]) -> anyhow::Result<Self> {
        self.store.template_overrides =
            Overrides::parse(patterns.iter().map(String::as_str)).context("--template")?;
        Ok(self)
    }
}

/// The file in `ar proxy`'s output directory that keeps the corrections
/// made in the web view, latest first, in the format of `--templates FILE`:
/// `ar import` of the directory and the next `ar proxy` there apply them (a
/// session keeps its own in `session.json`).
pub const TEMPLATES_FILE: &str = "templates.txt";

/// The corrections kept in `dir` (none when there is no [`TEMPLATES_FILE`]).
pub fn read_dir_templates(dir: &std::path::Path) -> anyhow::Result<Vec<String>> {
    let path = dir.join(TEMPLATES_FILE);
    if !path.is_file() {
        return Ok(Vec::new());
    }
    read_templates(&[], &[path])
}

/// Keeps `patterns` (corrections, latest first) in `dir`'s [`TEMPLATES_FILE`], atomically.
pub fn write_dir_templates(dir: &std::path::Path, patterns: &[String]) -> anyhow::Result<()> {
    let mut text = String::from(
        "# Path templates from corrections in ar's web view, latest first.\n\
         # `ar import` of this directory applies them; so does `--templates FILE`.\n",
    );
    for pattern in patterns {
        text.push_str(pattern);
        text.push('\n');
    }
    crate::files::write_atomic(&dir.join(TEMPLATES_FILE), text.as_bytes())
}

/// The user templates of `--template PATTERN` (`inline`) and `--templates
/// FILE` (`files`, one pattern a line, `#` comments and blank lines skipped),
/// in that order, each checked, duplicates dropped: an error names the
/// pattern (and the file and line) and what is wrong with it.
pub fn read_templates(inline: &[String], files: &[PathBuf]) -> anyhow::Result<Vec<String>> {
    let mut patterns = Vec::new();
    for text in inline {
        let pattern = Pattern::parse(text).context("--template")?;
        patterns.push(pattern.as_str().to_string());
    }
    for file in files {
        let text = std::fs::read_to_string(file)
            .with_context(|| format!("--templates: cannot read {}", file.display()))?;
        let parsed = Overrides::parse_lines(&text).map_err(|(line, error)| {
            anyhow::Error::new(error).context(format!("--templates {}:{line}", file.display()))
        })?;
        patterns.extend(parsed.iter().map(|p| p.as_str().to_string()));
    }
    let mut seen = std::collections::HashSet::new();
    patterns.retain(|p| seen.insert(p.clone()));
    Ok(patterns)
}

/// A new endpoint, for live output: `+ GET api.shop.test/users/{userId}  (200)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewEndpoint {
    /// The stable key.
    pub key: String,
    /// Where it came from.
    pub origin: Origin,
}

/// Why an endpoint appeared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// The flow was the first of its kind; its status, if it had a response.
    FirstFlow(Option<u16>),
    /// A template narrowed with the flow's evidence and the store split this
    /// endpoint off one it had merged too eagerly.
    Split,
}

impl fmt::Display for NewEndpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.origin {
            Origin::FirstFlow(Some(status)) => write!(f, "+ {}  ({status})", self.key),
            Origin::FirstFlow(None) => write!(f, "+ {}  (no response)", self.key),
            Origin::Split => write!(f, "+ {}  (split off: its template narrowed)", self.key),
        }
    }
}

/// What happened to one flow.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Ingest {
    /// Whether the flow was in scope.
    pub in_scope: bool,
    /// The scope verdict and its reason (the live web view shows it).
    pub scope: Option<ScopeDecision>,
    /// The stable key of the endpoint the flow joined, when in scope.
    pub endpoint: Option<String>,
    /// Endpoints that appeared: the one the flow created, if it was the first
    /// of its kind, and any the store split off because of it.
    pub new_endpoints: Vec<NewEndpoint>,
}

/// Counts for the one-line summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Summary {
    /// Flows ingested.
    pub flows: u64,
    /// Flows in scope.
    pub in_scope: u64,
    /// Endpoints in the store.
    pub endpoints: u64,
}

/// The single owner of the store (with its documenter) and the optional archive.
pub struct Pipeline {
    /// Keeps the [`Documenter`] as its endpoints' evidence.
    store: EndpointStore,
    enrichment: Enrichment,
    options: Options,
    archive: Option<Box<dyn Archive>>,
    /// The in-scope flows held against a published spec, with `--against`.
    drift: Option<Drift>,
    /// Kept to build a fresh store on [`Pipeline::rescope`].
    store_config: StoreConfig,
    /// The scope the store was built with, for a change of templates alone.
    scope_config: ScopeConfig,
    redact: bool,
    /// Whether the caller named the spec ([`Pipeline::set_title`]); if not,
    /// each rendering names it after the host with the most endpoints.
    titled: bool,
    /// Bumped by every rescope: endpoint ids from an older generation mean nothing now.
    generation: u64,
}

impl fmt::Debug for Pipeline {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pipeline")
            .field("summary", &self.summary())
            .finish_non_exhaustive()
    }
}

impl Pipeline {
    /// A pipeline with an empty store.
    pub fn new(config: PipelineConfig) -> anyhow::Result<Self> {
        let scope = Scope::new(config.scope.clone()).context("invalid scope")?;
        let redactor = if config.redact {
            Redactor::new()
        } else {
            Redactor::danger_disabled()
        };
        Ok(Self {
            store: EndpointStore::new(scope, config.store.clone())
                .with_evidence(Documenter::new(redactor)),
            enrichment: Enrichment::new(),
            options: config.options,
            archive: None,
            drift: config.against.map(Drift::new),
            store_config: config.store,
            scope_config: config.scope,
            redact: config.redact,
            titled: false,
            generation: 0,
        })
    }

    /// Archives every flow through `archive` before it is ingested.
    pub fn with_archive(mut self, archive: Box<dyn Archive>) -> Self {
        self.archive = Some(archive);
        self
    }

    /// Archives (if configured), stores and documents one flow, and holds it against the
    /// published spec (with `--against`) when it is in scope.
    pub fn ingest(&mut self, flow: &Flow) -> anyhow::Result<Ingest> {
        if let Some(archive) = &mut self.archive {
            archive.append(flow).context("cannot archive a flow")?;
        }
        let ingested = self.store.ingest(flow);
        if let Some(drift) = &mut self.drift
            && ingested.scope.is_in()
        {
            let key = ingested.endpoint.as_ref().map(|hit| hit.key.as_str());
            drift::observe(drift, flow, key, self.store.body_tapes(flow));
        }
        let split_off = ingested
            .splits
            .iter()
            .flat_map(|split| &split.created)
            .filter_map(|id| self.store.endpoint(*id))
            .map(|endpoint| NewEndpoint {
                key: endpoint.key().as_str().to_string(),
                origin: Origin::Split,
            });
        let first = ingested
            .endpoint
            .as_ref()
            .filter(|hit| hit.is_new)
            .map(|hit| NewEndpoint {
                key: hit.key.as_str().to_string(),
                origin: Origin::FirstFlow(flow.status()),
            });
        Ok(Ingest {
            in_scope: ingested.scope.is_in(),
            scope: Some(ingested.scope),
            endpoint: ingested
                .endpoint
                .as_ref()
                .map(|hit| hit.key.as_str().to_string()),
            new_endpoints: split_off.chain(first).collect(),
        })
    }

    /// Changes the scope of a running pipeline: the store cannot change its
    /// scope in place, so a fresh store and documenter are built for `scope`
    /// and fed by `replay` (the caller re-reads its archive, as `--resume`
    /// does), then take over. The archive, the names (kept by stable key)
    /// and the options carry over; [`Pipeline::generation`] goes up, since
    /// endpoint ids of the old store mean nothing in the new one. On error
    /// the pipeline is left as it was.
    pub fn rescope(
        &mut self,
        scope: ScopeConfig,
        replay: impl FnOnce(&mut Pipeline) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        let mut fresh = Pipeline::new(PipelineConfig {
            scope,
            store: self.store_config.clone(),
            redact: self.redact,
            options: self.options.clone(),
            against: self.drift.as_ref().map(|d| d.baseline().clone()),
        })?;
        replay(&mut fresh)?;
        fresh.enrichment = std::mem::take(&mut self.enrichment);
        fresh.archive = self.archive.take();
        fresh.titled = self.titled;
        fresh.generation = self.generation + 1;
        *self = fresh;
        Ok(())
    }

    /// Replaces the user templates (`overrides`) of a running pipeline the
    /// way [`Pipeline::rescope`] replaces the scope: a fresh store under
    /// `scope` (the current one, for a template change alone) fed by
    /// `replay`. On error the pipeline is left as it was.
    pub fn retemplate(
        &mut self,
        scope: ScopeConfig,
        overrides: Overrides,
        replay: impl FnOnce(&mut Pipeline) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        let old = std::mem::replace(&mut self.store_config.template_overrides, overrides);
        let result = self.rescope(scope, replay);
        if result.is_err() {
            self.store_config.template_overrides = old;
        }
        result
    }

    /// The scope now.
    pub fn scope_config(&self) -> &ScopeConfig {
        &self.scope_config
    }

    /// How many times the pipeline was rescoped (see [`Pipeline::rescope`]).
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Sets the names and prose of one endpoint (by stable key).
    pub fn annotate(&mut self, key: impl Into<String>, annotation: Annotation) {
        self.enrichment.insert(key.into(), annotation);
    }

    /// Renders the three documents from everything ingested so far, and with `--against`
    /// the two drift documents (API.md's overview then says what drifted).
    pub fn documents(&mut self) -> anyhow::Result<Documents> {
        if !self.titled {
            self.options.title = self.default_title();
        }
        let drift = self.drift_documents();
        self.options.overview = drift.iter().map(|d| d.overview.clone()).collect();
        let docs = ar_openapi::document(&self.store, &self.enrichment, &self.options)?;
        Ok(Documents {
            yaml: docs.yaml()?,
            json: docs.json()?,
            markdown: docs.markdown,
            drift,
        })
    }

    /// `DRIFT.md` and `drift.json` as they would be written now, with `--against`.
    pub fn drift_documents(&self) -> Option<DriftDocuments> {
        let report = self.drift_report()?;
        Some(drift::documents(&report, self.documenter().redactor()))
    }

    /// Where the flows drift from the published spec so far, with `--against`.
    pub fn drift_report(&self) -> Option<ar_diff::DriftReport> {
        self.drift.as_ref().map(|d| drift::report(d, &self.store))
    }

    /// The published spec the flows are held against, with `--against`.
    pub fn against(&self) -> Option<&Baseline> {
        self.drift.as_ref().map(Drift::baseline)
    }

    /// Sets the spec's title.
    pub fn set_title(&mut self, title: String) {
        self.options.title = title;
        self.titled = true;
    }

    /// `"<host> API"` for the host with the most endpoints, else "Captured API".
    pub fn default_title(&self) -> String {
        let mut per_host: std::collections::BTreeMap<&str, usize> =
            std::collections::BTreeMap::new();
        for endpoint in self.store.endpoints() {
            *per_host.entry(endpoint.host()).or_default() += 1;
        }
        per_host
            .iter()
            .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
            .map_or_else(
                || "Captured API".to_string(),
                |(host, _)| format!("{host} API"),
            )
    }

    /// Counts for the summary line.
    pub fn summary(&self) -> Summary {
        let stats = self.store.stats();
        Summary {
            flows: stats.flows,
            in_scope: stats.in_scope,
            endpoints: stats.endpoints,
        }
    }

    /// Records, for API.md, that the input was repaired or partly unreadable.
    pub fn note_input(&mut self, note: String) {
        self.documenter_mut().note_input(note);
    }

    /// What was left out, and why.
    pub fn ledger(&self) -> &ar_openapi::Ledger {
        self.documenter().ledger()
    }

    fn documenter(&self) -> &Documenter {
        (self.store.evidence()).expect("the pipeline's store keeps a documenter")
    }

    fn documenter_mut(&mut self) -> &mut Documenter {
        (self.store.evidence_mut()).expect("the pipeline's store keeps a documenter")
    }

    /// The store (read-only), for callers that search or explain endpoints.
    pub fn store(&self) -> &EndpointStore {
        &self.store
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flow(id: u64, url: &str, status: u16, json: &str) -> Flow {
        ar_flow::testing::json_flow(id, "GET", url, status, json)
    }

    #[test]
    fn an_untitled_spec_is_named_after_the_host_with_the_most_endpoints() {
        let mut pipeline = Pipeline::new(PipelineConfig::default()).unwrap();
        let empty = pipeline.documents().unwrap();
        assert!(empty.yaml.contains("title: Captured API"), "{}", empty.yaml);
        pipeline
            .ingest(&flow(1, "https://api.shop.test/users", 200, "[]"))
            .unwrap();
        pipeline
            .ingest(&flow(2, "https://api.shop.test/orders", 200, "[]"))
            .unwrap();
        pipeline
            .ingest(&flow(3, "https://cdn.shop.test/config", 200, "{}"))
            .unwrap();
        let named = pipeline.documents().unwrap();
        assert!(
            named.yaml.contains("title: api.shop.test API"),
            "{}",
            named.yaml
        );
        // A title the caller gives stays, whatever comes next.
        pipeline.set_title("Shop".into());
        pipeline
            .ingest(&flow(4, "https://cdn.shop.test/a", 200, "{}"))
            .unwrap();
        pipeline
            .ingest(&flow(5, "https://cdn.shop.test/b", 200, "{}"))
            .unwrap();
        assert!(pipeline.documents().unwrap().yaml.contains("title: Shop"));
    }

    #[test]
    fn endpoints_split_off_a_narrowed_template_are_announced() {
        let mut pipeline = Pipeline::new(PipelineConfig::default()).unwrap();
        let words = [
            "users",
            "orders",
            "carts",
            "reviews",
            "stores",
            "coupons",
            "invoices",
            "shipments",
        ];
        let mut announced = Vec::new();
        for (i, word) in (0..).zip(words) {
            let url = format!("https://api.shop.test/categories/{word}/settings");
            let ingest = pipeline.ingest(&flow(i, &url, 200, r#"{"theme":"dark"}"#));
            announced.extend(ingest.unwrap().new_endpoints);
        }
        // Eight alike plural words fold into one parameter at first (the
        // eighth flow merges the seven endpoints announced before it).
        assert_eq!(announced.len(), 7);
        assert_eq!(pipeline.summary().endpoints, 1);
        // `users` then shows its own ids: a REST collection, so every word is a
        // name again and the folded endpoint comes apart.
        let ingest = pipeline
            .ingest(&flow(
                9,
                "https://api.shop.test/categories/users/42",
                200,
                r#"{"id":42}"#,
            ))
            .unwrap();
        let lines: Vec<String> = ingest
            .new_endpoints
            .iter()
            .map(ToString::to_string)
            .collect();
        assert!(
            lines.contains(&"+ GET api.shop.test/categories/users/{userId}  (200)".to_string()),
            "{lines:?}"
        );
        let split_off = lines
            .iter()
            .filter(|l| l.ends_with("(split off: its template narrowed)"))
            .count();
        assert_eq!(split_off, 7, "{lines:?}");
        assert_eq!(pipeline.summary().endpoints, 9);
    }

    #[test]
    fn new_endpoints_are_reported_once_and_documents_render() {
        let mut pipeline = Pipeline::new(PipelineConfig::default()).unwrap();
        let first = pipeline
            .ingest(&flow(
                1,
                "https://api.shop.test/users/42",
                200,
                r#"{"id":42}"#,
            ))
            .unwrap();
        assert_eq!(
            first.new_endpoints[0].to_string(),
            "+ GET api.shop.test/users/{userId}  (200)"
        );
        let second = pipeline
            .ingest(&flow(
                2,
                "https://api.shop.test/users/43",
                200,
                r#"{"id":43}"#,
            ))
            .unwrap();
        assert!(second.in_scope && second.new_endpoints.is_empty());
        let docs = pipeline.documents().unwrap();
        assert!(docs.yaml.contains("/users/{userId}:"), "{}", docs.yaml);
        assert!(docs.json.contains("\"openapi\": \"3.0.3\""));
        assert!(docs.markdown.contains("GET /users/{userId}"));
        assert_eq!(
            pipeline.summary(),
            Summary {
                flows: 2,
                in_scope: 2,
                endpoints: 1
            }
        );
    }

    #[test]
    fn against_a_published_spec_the_documents_say_where_the_flows_drift() {
        let spec = ar_diff::Document::from_value(serde_json::json!({
            "openapi": "3.0.3",
            "servers": [{"url": "https://api.shop.test"}],
            "paths": {"/users/{id}": {"get": {"responses": {"200": {"content": {
                "application/json": {"schema": {"type": "object",
                    "properties": {"id": {"type": "integer"}}}}}}}}}}
        }))
        .unwrap();
        let config = PipelineConfig {
            against: Some(Baseline::new(spec, "users.yaml")),
            ..PipelineConfig::default()
        };
        let mut pipeline = Pipeline::new(config).unwrap();
        let flows = [
            flow(
                1,
                "https://api.shop.test/users/41",
                200,
                r#"{"id":41,"plan":"pro"}"#,
            ),
            flow(2, "https://api.shop.test/orders/7", 200, "{}"),
            flow(3, "https://api.shop.test/orders/8", 200, "{}"),
            flow(4, "https://cdn.shop.test/config", 200, "{}"),
        ];
        for f in &flows {
            pipeline.ingest(f).unwrap();
        }
        let docs = pipeline.documents().unwrap();
        let drift = docs.drift.expect("drift documents");
        assert_eq!(
            drift.headline,
            "1 shadow endpoint, 0 zombie endpoints, 0 violations, 1 undocumented"
        );
        // The store's template now names the two shadow calls, the first made as `/orders/7`.
        assert!(
            drift.markdown.contains("| `GET /orders/{orderId}` |")
                && drift.markdown.contains("| 2 | 2, 3 |"),
            "{}",
            drift.markdown
        );
        assert!(
            docs.markdown
                .contains("- **Drift from `users.yaml`:** 1 shadow endpoint, 0 zombie endpoints"),
            "{}",
            docs.markdown
        );
        let json: serde_json::Value = serde_json::from_str(&drift.json).unwrap();
        // The CDN is in scope, but it is not a host of the spec's servers.
        assert_eq!(json["summary"]["flows"], 4);
        assert_eq!(json["other_hosts"]["cdn.shop.test"], 1);

        // A rescope holds the replayed flows against the same spec.
        pipeline
            .rescope(pipeline.scope_config().clone(), |fresh| {
                flows.iter().try_for_each(|f| fresh.ingest(f).map(drop))
            })
            .unwrap();
        assert_eq!(pipeline.against().map(Baseline::name), Some("users.yaml"));
        let again = pipeline.documents().unwrap().drift.unwrap();
        assert_eq!(again.headline, drift.headline);

        let dir = tempfile::tempdir().unwrap();
        pipeline.documents().unwrap().write_to(dir.path()).unwrap();
        for file in ["DRIFT.md", "drift.json", "API.md", "openapi.yaml"] {
            assert!(dir.path().join(file).is_file(), "{file}");
        }
    }

    #[test]
    fn scope_hosts_keep_other_hosts_out() {
        let config = PipelineConfig::default().with_scope_hosts(&["api.shop.test".into()]);
        let mut pipeline = Pipeline::new(config).unwrap();
        assert!(
            !pipeline
                .ingest(&flow(1, "https://elsewhere.test/x", 200, "{}"))
                .unwrap()
                .in_scope
        );
        assert!(
            pipeline
                .ingest(&flow(2, "https://api.shop.test/x", 200, "{}"))
                .unwrap()
                .in_scope
        );
        assert_eq!(
            pipeline.ledger().other_hosts.get("elsewhere.test"),
            Some(&1)
        );
    }

    #[test]
    fn a_rescope_documents_old_flows_of_a_new_host_and_keeps_names() {
        let flows = [
            flow(1, "https://api.shop.test/users/42", 200, r#"{"id":42}"#),
            flow(2, "https://cdn.other.test/stock/7", 200, r#"{"n":7}"#),
        ];
        let config = PipelineConfig::default().with_scope_hosts(&["api.shop.test".into()]);
        let mut pipeline = Pipeline::new(config.clone()).unwrap();
        for flow in &flows {
            pipeline.ingest(flow).unwrap();
        }
        pipeline.annotate(
            "GET api.shop.test/users/{userId}",
            Annotation {
                operation_id: Some("getUser".into()),
                ..Annotation::default()
            },
        );
        assert!(!pipeline.documents().unwrap().yaml.contains("/stock/"));

        let mut wider = config.scope.clone();
        wider.extra_hosts.push("cdn.other.test".into());
        pipeline
            .rescope(wider, |fresh| {
                flows.iter().try_for_each(|f| fresh.ingest(f).map(drop))
            })
            .unwrap();
        assert_eq!(pipeline.generation(), 1);
        assert_eq!(pipeline.summary().endpoints, 2);
        let yaml = pipeline.documents().unwrap().yaml;
        assert!(yaml.contains("/stock/{"), "{yaml}");
        assert!(yaml.contains("operationId: getUser"), "{yaml}");

        // A failed replay leaves everything as it was.
        let error = pipeline.rescope(config.scope, |_| anyhow::bail!("archive unreadable"));
        assert!(error.is_err());
        assert_eq!(
            (pipeline.generation(), pipeline.summary().endpoints),
            (1, 2)
        );
    }
}
