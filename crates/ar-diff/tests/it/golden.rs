//! The three output formats on a hand-written pair that makes every kind of change
//! (`fixtures/pets-old.yaml` → `fixtures/pets-new.yaml`).

use std::collections::BTreeSet;

use ar_diff::{ChangeKind, Format, Report};

use crate::fixture;

fn report() -> Report {
    ar_diff::diff(&fixture("pets-old.yaml"), &fixture("pets-new.yaml"))
}

#[test]
fn text() {
    insta::assert_snapshot!(report().render(Format::Text));
}

#[test]
fn markdown() {
    insta::assert_snapshot!(report().render(Format::Markdown));
}

#[test]
fn json() {
    insta::assert_snapshot!(report().render(Format::Json));
}

#[test]
fn json_round_trips_and_counts_agree() {
    let report = report();
    let value: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
    let listed = value["global"].as_array().unwrap().len()
        + value["operations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["changes"].as_array().unwrap().len())
            .sum::<usize>();
    let summary = report.summary();
    assert_eq!(listed, summary.breaking + summary.non_breaking);
    assert!(report.has_breaking());
}

/// Every kind of change but `omitted` (which needs a pathological document; see
/// `schema_diff`'s unit tests) appears in the golden pair.
#[test]
fn the_pair_exercises_every_change_kind() {
    let report = report();
    let kinds: BTreeSet<String> = report
        .changes()
        .map(|(_, change)| {
            serde_json::to_value(&change.kind).unwrap()["kind"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    let all = [
        ChangeKind::Added { required: None },
        ChangeKind::Removed {
            required: None,
            deprecated: false,
        },
        ChangeKind::BecameRequired,
        ChangeKind::BecameOptional,
        ChangeKind::Deprecated,
        ChangeKind::Reactivated,
        ChangeKind::TypeChanged {
            from: String::new(),
            to: String::new(),
            relation: ar_diff::TypeRelation::Changed,
        },
        ChangeKind::BecameNullable,
        ChangeKind::BecameNotNullable,
        ChangeKind::EnumValuesAdded { values: vec![] },
        ChangeKind::EnumValuesRemoved { values: vec![] },
        ChangeKind::BecameEnum { values: vec![] },
        ChangeKind::EnumDropped,
        ChangeKind::VariantAdded {
            combinator: ar_diff::Combinator::AnyOf,
            variant: String::new(),
        },
        ChangeKind::AuthenticationRequired {
            requirements: vec![],
        },
        ChangeKind::AuthenticationOptional,
        ChangeKind::ScopesAdded { scopes: vec![] },
        ChangeKind::ScopesRemoved { scopes: vec![] },
    ];
    for kind in all {
        let name = serde_json::to_value(&kind).unwrap()["kind"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(
            kinds.contains(&name),
            "no `{name}` change in the golden pair"
        );
    }
}

/// Diffing the other way round swaps additions and removals.
#[test]
fn reversed_pair() {
    let backwards = ar_diff::diff(&fixture("pets-new.yaml"), &fixture("pets-old.yaml"));
    let forwards = report().summary();
    let summary = backwards.summary();
    assert_eq!(summary.operations_added, forwards.operations_removed);
    assert_eq!(summary.operations_removed, forwards.operations_added);
    assert_eq!(summary.operations_changed, forwards.operations_changed);
}

/// A `readOnly` property is never sent and a `writeOnly` one never answered: adding them is
/// no change on that side.
#[test]
fn read_only_and_write_only_properties_stay_on_their_side() {
    let report = report();
    for (_, change) in report.changes() {
        assert!(
            !change.message.contains("property `id`"),
            "{}",
            change.message
        );
        assert!(!change.message.contains("secret"), "{}", change.message);
    }
}

/// YAML writes status codes bare (`200:`); parsed into a `serde_json::Value` they are string
/// keys like any other, so the comparison sees `"200"`.
#[test]
fn bare_yaml_status_codes_read_as_strings() {
    let yaml = "openapi: 3.0.0\npaths:\n  /a:\n    get:\n      responses:\n        200: {description: ok}\n";
    let old: serde_json::Value = serde_norway::from_str(yaml).expect("parses");
    let new: serde_json::Value =
        serde_norway::from_str(&yaml.replace("200:", "201:")).expect("parses");
    let report = ar_diff::diff(&crate::doc(old), &crate::doc(new));
    let rules: Vec<&str> = report.changes().map(|(_, c)| c.rule.id()).collect();
    assert_eq!(
        rules,
        [
            "response-success-status-removed",
            "response-success-status-added"
        ]
    );
}
