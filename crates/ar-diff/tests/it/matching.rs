//! Requests matched to operations, on the corpus: every operation, called with made-up
//! parameter values under its server's base path, is found again.

use ar_diff::{Lookup, OperationMatcher};

use crate::corpus::corpus;
use crate::doc;

/// `/users/{id}/files/{name}.{ext}` with each parameter replaced by a value no literal
/// segment of a real API spells.
fn concrete(template: &str) -> String {
    let mut out = String::new();
    let mut rest = template;
    let mut n = 0;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}').map(|c| open + c) else {
            break;
        };
        out.push_str(&rest[..open]);
        n += 1;
        out.push_str(&format!("zq{n}x"));
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    out
}

#[test]
fn every_corpus_operation_is_found_from_a_concrete_request() {
    let mut checked = 0;
    for (name, value) in corpus() {
        let document = doc(value);
        let matcher = OperationMatcher::new(&document);
        for operation in document.operations() {
            let path = concrete(operation.path());
            let found = matcher
                .find(operation.method(), &format!("{path}?page=2"))
                .unwrap_or_else(|| panic!("{name}: {} {path} not found", operation.method()));
            assert_eq!(
                found.path,
                operation.path(),
                "{name}: {} {path}",
                operation.method()
            );
            let names: Vec<&str> = found.params.iter().map(|(n, _)| *n).collect();
            assert!(
                names
                    .iter()
                    .all(|n| operation.path().contains(&format!("{{{n}}}"))),
                "{name}: {names:?}"
            );
            checked += 1;
        }
    }
    assert!(checked > 500, "{checked}");
}

#[test]
fn paths_and_methods_not_documented() {
    let (_, value) = corpus()
        .into_iter()
        .find(|(name, _)| name == "asana")
        .expect("asana");
    let document = doc(value);
    let matcher = OperationMatcher::new(&document);
    assert_eq!(
        matcher.lookup(ar_diff::Method::Get, "/api/1.0/no/such/thing"),
        Lookup::NotFound
    );
    let operation = &document.operations()[0];
    let undocumented = ar_diff::Method::ALL
        .into_iter()
        .find(|m| {
            !document
                .operations()
                .iter()
                .any(|o| o.path() == operation.path() && o.method() == *m)
        })
        .expect("a method the path lacks");
    match matcher.lookup(undocumented, &concrete(operation.path())) {
        Lookup::MethodNotDocumented { methods, .. } => {
            assert!(methods.contains(&operation.method()))
        }
        other => panic!("{other:?}"),
    }
}
