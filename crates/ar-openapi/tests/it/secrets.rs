//! A HAR full of secrets: none of them reaches the YAML, the JSON or the markdown.

use crate::{HARS, data, everything, import};

#[test]
fn no_secret_string_appears_anywhere_in_the_outputs() {
    let secrets = std::fs::read_to_string(data("secrets.txt")).unwrap();
    let secrets: Vec<&str> = secrets.lines().filter(|l| !l.is_empty()).collect();
    assert!(secrets.len() > 20);
    let imported = import("secrets", everything());
    let outputs = [
        imported.docs.yaml().unwrap(),
        imported.docs.json().unwrap(),
        imported.docs.markdown.clone(),
    ];
    for output in &outputs {
        for secret in &secrets {
            assert!(!output.contains(secret), "{secret} leaked:\n{output}");
        }
    }
    // Names stay, so the auth is still documented.
    let yaml = &outputs[0];
    assert!(
        yaml.contains("X-Api-Key") && yaml.contains("bearerAuth") && yaml.contains("sessionCookie"),
        "{yaml}"
    );
}

#[test]
fn no_output_of_any_canned_har_carries_a_raw_credential_header() {
    for name in HARS {
        let imported = import(name, everything());
        for output in [
            imported.docs.yaml().unwrap(),
            imported.docs.markdown.clone(),
        ] {
            for line in output.lines() {
                let lower = line.to_ascii_lowercase();
                if lower.starts_with("authorization:")
                    || lower.starts_with("cookie:")
                    || lower.starts_with("x-api-key:")
                {
                    assert!(line.contains("REDACTED"), "{name}: {line}");
                }
            }
        }
    }
}
