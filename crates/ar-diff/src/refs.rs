//! Local `$ref` resolution: `#/components/schemas/User` and any other JSON pointer into the
//! same document.
//!
//! A reference to another file (`other.yaml#/User`) or by `$id` is left unresolved: the
//! comparison then holds the reference text itself (two documents naming the same external
//! schema agree; naming different ones is a change). Chains (`A` → `B` → `C`) are followed up to
//! [`MAX_REF_HOPS`]; a chain that comes back on itself ends there, unresolved. Cycles
//! *through* a schema (a `Node` whose `children` are `Node`s) are the walker's business
//! (`schema_diff.rs`), which keeps the pairs it is inside of.

use std::borrow::Cow;

use serde_json::Value;

/// How many `$ref`s in a row one resolution follows before it gives up.
pub const MAX_REF_HOPS: usize = 32;

/// The `$ref` of `value`, when `value` is a reference object.
pub(crate) fn reference_of(value: &Value) -> Option<&str> {
    value.as_object()?.get("$ref")?.as_str()
}

/// Follows `value`'s `$ref` chain in `root` to the value it ends at (`value` itself when it is
/// no reference). `Err` holds a reference that could not be followed: external or dangling
/// (that reference), or circular or too long a chain (the first).
pub(crate) fn resolve<'a>(root: &'a Value, value: &'a Value) -> Result<&'a Value, &'a str> {
    let mut current = value;
    for _ in 0..MAX_REF_HOPS {
        match reference_of(current) {
            Some(reference) => current = pointer(root, reference).ok_or(reference)?,
            None => return Ok(current),
        }
    }
    match reference_of(current) {
        Some(_) => Err(reference_of(value).unwrap_or_default()),
        None => Ok(current),
    }
}

/// Follows `value`'s chain, or gives `value` back when it cannot be followed.
pub(crate) fn resolve_or_self<'a>(root: &'a Value, value: &'a Value) -> &'a Value {
    resolve(root, value).unwrap_or(value)
}

/// The value a local reference (`#`, `#/a/b~1c`) points at in `root`.
pub(crate) fn pointer<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let path = reference.strip_prefix('#')?;
    if path.is_empty() {
        return Some(root);
    }
    let path = path.strip_prefix('/')?;
    let mut current = root;
    for raw in path.split('/') {
        let decoded = percent_decode(raw);
        let token = unescape(&decoded);
        current = match current {
            Value::Object(map) => map.get(token.as_ref())?,
            Value::Array(items) => items.get(token.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(current)
}

/// The name a reference gives its target: its last segment (`User` for
/// `#/components/schemas/User`).
pub(crate) fn reference_name(reference: &str) -> String {
    let last = reference.rsplit('/').next().unwrap_or(reference);
    unescape(&percent_decode(last)).into_owned()
}

fn unescape(token: &str) -> Cow<'_, str> {
    if token.contains('~') {
        Cow::Owned(token.replace("~1", "/").replace("~0", "~"))
    } else {
        Cow::Borrowed(token)
    }
}

/// `%XX` escapes decoded; anything malformed is kept as written.
pub(crate) fn percent_decode(text: &str) -> Cow<'_, str> {
    if !text.contains('%') {
        return Cow::Borrowed(text);
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%'
            && let (Some(hi), Some(lo)) = (
                bytes.get(i + 1).and_then(|&b| hex(b)),
                bytes.get(i + 2).and_then(|&b| hex(b)),
            )
        {
            out.push((hi * 16 + lo) as u8);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    Cow::Owned(String::from_utf8_lossy(&out).into_owned())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn doc() -> Value {
        json!({
            "components": {"schemas": {
                "User": {"type": "object"},
                "Alias": {"$ref": "#/components/schemas/User"},
                "Loop": {"$ref": "#/components/schemas/Loop2"},
                "Loop2": {"$ref": "#/components/schemas/Loop"},
                "a/b": {"type": "string"},
                "list": [{"type": "integer"}]
            }}
        })
    }

    #[test]
    fn follows_chains_and_names_references() {
        let root = doc();
        let r = json!({"$ref": "#/components/schemas/Alias"});
        assert_eq!(resolve(&root, &r), Ok(&json!({"type": "object"})));
        assert_eq!(reference_name("#/components/schemas/User"), "User");
        assert_eq!(reference_name("#/components/schemas/a~1b"), "a/b");
    }

    #[test]
    fn cycles_external_and_dangling_references_are_unresolved() {
        let root = doc();
        let cyclic = json!({"$ref": "#/components/schemas/Loop"});
        assert!(resolve(&root, &cyclic).is_err());
        let external = json!({"$ref": "other.yaml#/User"});
        assert_eq!(resolve(&root, &external).unwrap_err(), "other.yaml#/User");
        let dangling = json!({"$ref": "#/components/schemas/Nobody"});
        assert!(resolve(&root, &dangling).is_err());
        assert_eq!(resolve_or_self(&root, &dangling), &dangling);
    }

    #[test]
    fn pointers_unescape_and_index_arrays() {
        let root = doc();
        assert_eq!(
            pointer(&root, "#/components/schemas/a~1b"),
            Some(&json!({"type": "string"}))
        );
        assert_eq!(
            pointer(&root, "#/components/schemas/a%7E1b"),
            Some(&json!({"type": "string"}))
        );
        assert_eq!(
            pointer(&root, "#/components/schemas/list/0"),
            Some(&json!({"type": "integer"}))
        );
        assert_eq!(pointer(&root, "#"), Some(&root));
        assert_eq!(pointer(&root, "#components"), None);
    }

    #[test]
    fn percent_decoding_keeps_malformed_escapes() {
        assert_eq!(percent_decode("a%20b"), "a b");
        assert_eq!(percent_decode("100%"), "100%");
        assert_eq!(percent_decode("%zz%4"), "%zz%4");
        assert_eq!(percent_decode("caf%C3%A9"), "café");
    }
}
