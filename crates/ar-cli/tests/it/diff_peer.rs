//! `ar diff` side by side with a peer that classifies breaking changes: the npm package
//! openapi-diff 0.24.1 (pinned in `.ci/node`), on pairs of real published API documents
//! (`tests/data/diff/pairs`; `make_pairs.py` there says where each file came from).
//!
//! The two report at different grains. `ar diff` lists a change per parameter, property,
//! status, media type; openapi-diff one difference per path or method added or removed, per
//! status code and response header added or removed, and one "scope" difference per request
//! or response body, when the set of JSON values its `application/json` schema accepts grew
//! or shrank. So both reports are brought to openapi-diff's grain, a *unit*: an operation, its
//! request body, one response's body, one response's status code, one response header; and
//! the units only `ar` looks at: a parameter, an operation's security, the document's
//! security. A tool calls a unit breaking when any of its findings there is breaking.
//!
//! The tools agree on a unit when both call it breaking, or both found something there and
//! neither calls it breaking. A unit that one calls breaking and the other does not is a
//! difference: each must be listed, with the reason, in `pairs/allowlist.json`, and each
//! entry there must still be observed, so the list says exactly where the two part.
//! Each test prints its pair's row of the comparison table (`--nocapture` shows it).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// The peer's version the allowlist was written against.
const PEER_VERSION: &str = "0.24.1";

const METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "patch", "head", "options", "trace",
];

fn pairs_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/diff/pairs")
}

fn read_json(path: &Path) -> Value {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// openapi-diff's command-line entry point, when node and the package are there: under CI
/// both must be; elsewhere the test says what is missing and passes without running.
fn peer() -> Option<PathBuf> {
    let node = Command::new("node").arg("--version").output();
    if !node.is_ok_and(|out| out.status.success()) {
        let message = "node is not on PATH: install Node.js (`bash .ci/run` does)";
        assert!(std::env::var("CI").as_deref() != Ok("true"), "{message}");
        eprintln!("skipped: {message}");
        return None;
    }
    let package = crate::repo().join(".ci/node/node_modules/openapi-diff");
    if !crate::installed(&package.join("package.json"), "openapi-diff") {
        return None;
    }
    let version = read_json(&package.join("package.json"))["version"].clone();
    assert_eq!(
        version, PEER_VERSION,
        "the allowlist was written against openapi-diff {PEER_VERSION}"
    );
    Some(package.join("bin/openapi-diff"))
}

/// `{name}` → `{}`: path templates compared whatever their parameters are called, as both
/// tools do.
fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut inside = false;
    for c in text.chars() {
        match c {
            '{' => {
                inside = true;
                out.push('{');
            }
            '}' => {
                inside = false;
                out.push('}');
            }
            _ if inside => {}
            _ => out.push(c),
        }
    }
    out
}

/// What each tool found in one unit: (breaking, the finding in its own words).
#[derive(Default)]
struct Findings {
    /// The unit as first named, with its parameters' names.
    what: String,
    ar: Vec<(bool, String)>,
    peer: Vec<(bool, String)>,
}

impl Findings {
    fn ar_breaking(&self) -> bool {
        self.ar.iter().any(|(breaking, _)| *breaking)
    }

    fn peer_breaking(&self) -> bool {
        self.peer.iter().any(|(breaking, _)| *breaking)
    }
}

#[derive(Default)]
struct Units(BTreeMap<String, Findings>);

impl Units {
    fn entry(&mut self, what: String) -> &mut Findings {
        let findings = self.0.entry(normalize(&what)).or_default();
        if findings.what.is_empty() {
            findings.what = what;
        }
        findings
    }
}

/// `ar diff --format json`'s changes, each in its unit.
fn add_ar(units: &mut Units, report: &Value) {
    for operation in report["operations"].as_array().expect("operations") {
        let name = format!(
            "{} {}",
            operation["method"].as_str().expect("method"),
            operation["path"].as_str().expect("path")
        );
        for change in operation["changes"].as_array().expect("changes") {
            let field = |key: &str| change[key].as_str().unwrap_or_default();
            let what = match field("element") {
                "operation" => name.clone(),
                "parameter" => format!("{name} {} parameter {}", field("in"), field("name")),
                "request_body" => format!("{name} request body"),
                "response" if change.get("media_type").is_some() => {
                    format!("{name} response {} body", field("status"))
                }
                "response" => format!("{name} response {}", field("status")),
                "security" => format!("{name} security"),
                other => panic!("an element this test does not know: {other}"),
            };
            let breaking = change["breaking"].as_bool().expect("breaking");
            let said = format!("{} [{}]", field("message"), field("rule"));
            units.entry(what).ar.push((breaking, said));
        }
    }
    for change in report["global"].as_array().expect("global") {
        let breaking = change["breaking"].as_bool().expect("breaking");
        let said = format!(
            "{} [{}]",
            change["message"].as_str().unwrap_or_default(),
            change["rule"].as_str().unwrap_or_default()
        );
        units
            .entry("security (document)".to_owned())
            .ar
            .push((breaking, said));
    }
}

/// The path template a location `paths.<template>.<method>...` starts with: the longest of
/// the documents' templates that it does (templates may hold dots).
fn split_location<'a>(
    location: &'a str,
    templates: &BTreeSet<String>,
) -> Option<(&'a str, &'a str)> {
    let rest = location.strip_prefix("paths.")?;
    templates
        .iter()
        .filter(|template| {
            rest.starts_with(template.as_str())
                && matches!(rest.as_bytes().get(template.len()), None | Some(b'.'))
        })
        .max_by_key(|template| template.len())
        .map(|template| {
            let after = &rest[template.len()..];
            (
                &rest[..template.len()],
                after.strip_prefix('.').unwrap_or(after),
            )
        })
}

/// The methods a document has at `template`.
fn methods_at(doc: &Value, template: &str) -> Vec<String> {
    let item = &doc["paths"][template];
    METHODS
        .iter()
        .filter(|method| item.get(**method).is_some())
        .map(|method| method.to_ascii_uppercase())
        .collect()
}

/// openapi-diff's differences, each in its unit; returns its three counts.
fn add_peer(units: &mut Units, outcome: &Value, old: &Value, new: &Value) -> [usize; 3] {
    let templates: BTreeSet<String> = [old, new]
        .iter()
        .flat_map(|doc| doc["paths"].as_object().expect("paths").keys().cloned())
        .collect();
    let mut counts = [0; 3];
    let lists = [
        "breakingDifferences",
        "nonBreakingDifferences",
        "unclassifiedDifferences",
    ];
    for (list, count) in lists.iter().zip(counts.iter_mut()) {
        let differences = outcome[*list].as_array().map_or(&[][..], Vec::as_slice);
        *count = differences.len();
        for difference in differences {
            let breaking = difference["type"] == "breaking";
            let code = difference["code"].as_str().expect("code");
            let details = difference["sourceSpecEntityDetails"]
                .as_array()
                .filter(|details| !details.is_empty())
                .or_else(|| difference["destinationSpecEntityDetails"].as_array())
                .expect("entity details");
            let location = details[0]["location"].as_str().expect("location");
            let said = format!("{code} at {location}");
            let Some((template, rest)) = split_location(location, &templates) else {
                units.entry(location.to_owned()).peer.push((breaking, said));
                continue;
            };
            if code.starts_with("path.") {
                let doc = if code == "path.remove" { old } else { new };
                for method in methods_at(doc, template) {
                    let what = format!("{method} {template}");
                    units.entry(what).peer.push((breaking, said.clone()));
                }
                continue;
            }
            let mut parts = rest.splitn(5, '.');
            let method = parts.next().unwrap_or_default().to_ascii_uppercase();
            let name = format!("{method} {template}");
            let what = match (code, parts.next(), parts.next(), parts.next()) {
                ("method.add" | "method.remove", ..) => name,
                (_, Some("requestBody"), ..) => format!("{name} request body"),
                (_, Some("responses"), Some(status), None) => format!("{name} response {status}"),
                (_, Some("responses"), Some(status), Some("content")) => {
                    format!("{name} response {status} body")
                }
                (_, Some("responses"), Some(status), Some("headers")) => {
                    let header = parts.next().unwrap_or_default();
                    format!("{name} response {status} header {header}")
                }
                _ => location.to_owned(),
            };
            units.entry(what).peer.push((breaking, said));
        }
    }
    counts
}

/// The allowlist's entries for `pair`, normalized, and every reason it gives.
fn allowlist(pair: &str) -> (BTreeSet<(String, String)>, BTreeMap<String, String>) {
    let list = read_json(&pairs_dir().join("allowlist.json"));
    let reasons: BTreeMap<String, String> = list["reasons"]
        .as_object()
        .expect("reasons")
        .iter()
        .map(|(id, text)| {
            (
                id.clone(),
                text.as_str().expect("a reason's text").to_owned(),
            )
        })
        .collect();
    let entries = list["differences"]
        .as_array()
        .expect("differences")
        .iter()
        .filter(|entry| entry["pair"] == pair)
        .map(|entry| {
            let why = entry["why"].as_str().expect("why");
            assert!(reasons.contains_key(why), "allowlist: no reason `{why}`");
            (
                normalize(entry["what"].as_str().expect("what")),
                entry["breaking_for"]
                    .as_str()
                    .expect("breaking_for")
                    .to_owned(),
            )
        })
        .collect();
    (entries, reasons)
}

/// Runs both tools on `pair`, prints its row of the table, and checks that every unit one
/// calls breaking and the other does not is in the allowlist, and nothing else is.
fn compare(pair: &str) {
    let Some(peer) = peer() else { return };
    let dir = pairs_dir().join(pair);
    let (old_path, new_path) = (dir.join("old.json"), dir.join("new.json"));
    let (old, new) = (read_json(&old_path), read_json(&new_path));

    let ar = Command::new(env!("CARGO_BIN_EXE_ar"))
        .arg("diff")
        .args([&old_path, &new_path])
        .args(["--format", "json"])
        .output()
        .expect("ar runs");
    assert_eq!(
        ar.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&ar.stderr)
    );
    let report: Value = serde_json::from_slice(&ar.stdout).expect("ar's JSON report");

    // The command as its users run it: a line of English, then the outcome as JSON; exit
    // status 1 when a change breaks, and also when it fails (then there is no JSON). Its
    // output goes to a file: into a pipe, node writes asynchronously and the exit the CLI
    // calls on breaking changes cuts the outcome short.
    let out = tempfile::NamedTempFile::new().expect("a temporary file");
    let od = Command::new("node")
        .arg(&peer)
        .args([&old_path, &new_path])
        .stdout(out.reopen().expect("the temporary file"))
        .output()
        .expect("node runs");
    let stdout = std::fs::read_to_string(out.path()).expect("openapi-diff's output");
    let Some(start) = stdout.find('{') else {
        panic!(
            "openapi-diff gave no outcome on {pair} (exit {:?}): {}{}",
            od.status.code(),
            stdout,
            String::from_utf8_lossy(&od.stderr)
        );
    };
    let outcome: Value = serde_json::from_str(&stdout[start..]).expect("openapi-diff's JSON");

    let mut units = Units::default();
    add_ar(&mut units, &report);
    let [od_breaking, od_non_breaking, od_unclassified] =
        add_peer(&mut units, &outcome, &old, &new);

    let mut agree_breaking = 0;
    let mut agree_other = 0;
    let mut ar_alone = 0;
    let mut peer_alone = 0;
    let mut differences = BTreeSet::new();
    let mut shown = Vec::new();
    for (key, findings) in &units.0 {
        let (a, p) = (findings.ar_breaking(), findings.peer_breaking());
        if a && p {
            agree_breaking += 1;
        } else if a || p {
            let breaking_for = if a { "ar" } else { "openapi-diff" };
            differences.insert((key.clone(), breaking_for.to_owned()));
            shown.push((findings, breaking_for));
        } else if !findings.ar.is_empty() && !findings.peer.is_empty() {
            agree_other += 1;
        } else if findings.ar.is_empty() {
            peer_alone += 1;
        } else {
            ar_alone += 1;
        }
    }
    let summary = &report["summary"];
    eprintln!(
        "| {pair} | {} | {} | {od_breaking} | {od_non_breaking} | {od_unclassified} | \
         {agree_breaking} | {agree_other} | {} ar, {} openapi-diff | {ar_alone} | {peer_alone} |",
        summary["breaking"],
        summary["non_breaking"],
        shown.iter().filter(|(_, side)| *side == "ar").count(),
        shown
            .iter()
            .filter(|(_, side)| *side == "openapi-diff")
            .count(),
    );

    let (listed, _) = allowlist(pair);
    let unexplained: Vec<String> = shown
        .iter()
        .filter(|(findings, side)| !listed.contains(&(normalize(&findings.what), (*side).to_owned())))
        .map(|(findings, side)| {
            let said = |list: &[(bool, String)]| {
                list.iter()
                    .map(|(breaking, text)| format!("{}{text}", if *breaking { "breaking: " } else { "" }))
                    .collect::<Vec<_>>()
                    .join("; ")
            };
            format!(
                "{{\"pair\": \"{pair}\", \"what\": \"{}\", \"breaking_for\": \"{side}\", \"why\": \"?\"}}\n    ar: {}\n    openapi-diff: {}",
                findings.what,
                said(&findings.ar),
                said(&findings.peer)
            )
        })
        .collect();
    let stale: Vec<&(String, String)> = listed.difference(&differences).collect();
    assert!(
        unexplained.is_empty() && stale.is_empty(),
        "{pair}: {} differences not in allowlist.json:\n{}\n{} entries of allowlist.json not observed: {stale:?}",
        unexplained.len(),
        unexplained.join("\n"),
        stale.len(),
    );
}

/// GitHub's REST API (Octokit's build, v22 and v23), the operations tagged `teams`.
#[test]
fn github_teams_same_breaking_changes_as_openapi_diff() {
    compare("github-teams");
}

/// Twilio Flex v1, 1.39.1 and 1.55.0.
#[test]
fn twilio_flex_same_breaking_changes_as_openapi_diff() {
    compare("twilio-flex-v1");
}

/// Twilio Messaging v1, 1.39.1 and 1.55.0.
#[test]
fn twilio_messaging_same_breaking_changes_as_openapi_diff() {
    compare("twilio-messaging-v1");
}

/// Apideck's ATS API, 9.1.0 and 10.0.0.
#[test]
fn apideck_ats_same_breaking_changes_as_openapi_diff() {
    compare("apideck-ats");
}

/// Apideck's Vault API, 9.1.0 and 10.0.0.
#[test]
fn apideck_vault_same_breaking_changes_as_openapi_diff() {
    compare("apideck-vault");
}

/// Every allowlist entry names a pair this file compares and a reason it gives, and every
/// reason is used.
#[test]
fn allowlist_names_known_pairs_and_reasons() {
    let list = read_json(&pairs_dir().join("allowlist.json"));
    let pairs = [
        "github-teams",
        "twilio-flex-v1",
        "twilio-messaging-v1",
        "apideck-ats",
        "apideck-vault",
    ];
    let reasons = list["reasons"].as_object().expect("reasons");
    let mut used = BTreeSet::new();
    for entry in list["differences"].as_array().expect("differences") {
        let pair = entry["pair"].as_str().expect("pair");
        assert!(pairs.contains(&pair), "allowlist: unknown pair {pair}");
        assert!(
            matches!(entry["breaking_for"].as_str(), Some("ar" | "openapi-diff")),
            "allowlist: breaking_for is `ar` or `openapi-diff`: {entry}"
        );
        let why = entry["why"].as_str().expect("why");
        assert!(reasons.contains_key(why), "allowlist: no reason `{why}`");
        used.insert(why);
    }
    let unused: Vec<&String> = reasons
        .keys()
        .filter(|id| !used.contains(id.as_str()))
        .collect();
    assert!(
        unused.is_empty(),
        "allowlist: reasons no entry uses: {unused:?}"
    );
}
