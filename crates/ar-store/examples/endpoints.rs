//! Reads HAR files and prints the endpoints `ar` would document.
//!
//! ```text
//! cargo run -p ar-store --example endpoints -- fixtures/har/chrome-shop.har
//! cargo run -p ar-store --example endpoints -- --target https://shop.test --explain FILE.har...
//! ```

#![expect(
    clippy::disallowed_methods,
    clippy::disallowed_types,
    reason = "an example is a caller: it reads the file and the arguments the crate does not"
)]

use std::fs::File;
use std::io::BufReader;
use std::process::ExitCode;

use ar_flow::har::{ImportOptions, stream_har};
use ar_store::scope::{Scope, ScopeConfig};
use ar_store::store::{EndpointStore, StoreConfig};

fn main() -> ExitCode {
    let mut target = None;
    let mut explain = false;
    let mut files = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--target" => target = args.next(),
            "--explain" => explain = true,
            "-h" | "--help" => {
                println!("usage: endpoints [--target URL] [--explain] FILE.har...");
                return ExitCode::SUCCESS;
            }
            _ => files.push(arg),
        }
    }
    if files.is_empty() {
        eprintln!("usage: endpoints [--target URL] [--explain] FILE.har...");
        return ExitCode::from(2);
    }
    let mut config = ScopeConfig::default();
    config.target = target;
    let scope = match Scope::new(config) {
        Ok(scope) => scope,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let mut store = EndpointStore::new(scope, StoreConfig::default());
    let mut next_id = 1;
    for path in &files {
        let file = match File::open(path) {
            Ok(f) => f,
            Err(e) => {
                eprintln!("error: {path}: {e}");
                return ExitCode::FAILURE;
            }
        };
        let options = ImportOptions::lenient().with_first_id(next_id);
        match stream_har(BufReader::new(file), &options, |flow| {
            next_id = flow.id.0 + 1;
            store.ingest(&flow);
        }) {
            Ok(summary) => {
                eprintln!(
                    "{path}: {} of {} entries imported ({})",
                    summary.imported,
                    summary.entries,
                    summary.creator.as_deref().unwrap_or("unknown creator")
                );
                for error in &summary.skipped {
                    eprintln!("  skipped {error}");
                }
            }
            Err(e) => {
                eprintln!("error: {path}: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    for ep in store.endpoints() {
        let statuses: Vec<String> = ep
            .statuses()
            .iter()
            .map(|(s, n)| format!("{s}×{n}"))
            .collect();
        println!(
            "{}  [{} flows; {}]",
            ep.key(),
            ep.flow_count(),
            statuses.join(" ")
        );
        for p in ep.template().params() {
            println!("    {{{}}}: {}", p.name, p.evidence.rule);
        }
        for (name, stats) in &ep.query_params().params {
            let always = if stats.seen == ep.flow_count() {
                "always"
            } else {
                "sometimes"
            };
            println!(
                "    ?{name} ({always}; {:?})",
                stats.kinds.keys().collect::<Vec<_>>()
            );
        }
        for link in ep.links() {
            let source = store
                .endpoint(link.source)
                .map_or("?".to_string(), |s| s.key().to_string());
            println!(
                "    {{{}}} comes from {} of {source}",
                link.param, link.field_path
            );
        }
        if explain && let Some(explanation) = store.explain(ep.id()) {
            for line in explanation.to_string().lines().skip(1) {
                println!("   {line}");
            }
        }
    }
    let out = store.out_of_scope();
    if !out.is_empty() {
        println!("\nout of scope:");
        for o in out {
            println!("  {} ({}): {}", o.host, o.reason.as_str(), o.count);
        }
    }
    ExitCode::SUCCESS
}
