//! Enums that only echo what the request asked for.
//!
//! A listing filtered by `?state=open` answers `"state": "open"` in every
//! item, however many items were seen: the values show what the client asked
//! for, not the set of values the field can take, and an enum of them makes
//! a typed client reject the first item in another state. When every value
//! of a response enum was sent as one query or path parameter of the same
//! operation, the enum is dropped (the field stays a string).

use serde_json::Value;

/// Removes, anywhere in `schema`, each `enum` whose string values (ignoring
/// `null`) all appear among the values of one parameter in `sent` (each
/// entry: the distinct values one parameter was sent with).
///
/// ```ignore
/// let mut schema = json!({"type": "string", "enum": ["open"]});
/// drop_echoed_enums(&mut schema, &[&["open".into()]]);
/// assert!(schema.get("enum").is_none());
/// ```
pub(crate) fn drop_echoed_enums(schema: &mut Value, sent: &[&[Box<str>]]) {
    if sent.is_empty() {
        return;
    }
    match schema {
        Value::Object(object) => {
            if object
                .get("enum")
                .and_then(Value::as_array)
                .is_some_and(|values| echoes(values, sent))
            {
                object.remove("enum");
            }
            object
                .values_mut()
                .for_each(|child| drop_echoed_enums(child, sent));
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|child| drop_echoed_enums(child, sent)),
        _ => {}
    }
}

/// Whether the enum's string values are all values one parameter was sent
/// with.
fn echoes(values: &[Value], sent: &[&[Box<str>]]) -> bool {
    let strings: Vec<&str> = values.iter().filter_map(Value::as_str).collect();
    !strings.is_empty()
        && sent.iter().any(|param| {
            strings
                .iter()
                .all(|value| param.iter().any(|sent| **sent == **value))
        })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn an_enum_of_values_one_parameter_was_sent_with_is_dropped() {
        let open: Vec<Box<str>> = vec!["open".into()];
        let both: Vec<Box<str>> = vec!["open".into(), "closed".into()];
        let mut listing = json!({"type": "object", "properties": {
            "state": {"type": "string", "enum": ["open"]},
            "kind": {"type": "string", "enum": ["bug", "docs"]},
            "labels": {"type": "array", "items": {"type": "string", "nullable": true, "enum": ["open", "closed", null]}},
        }});
        drop_echoed_enums(&mut listing, &[&open, &both]);
        let properties = &listing["properties"];
        assert!(properties["state"].get("enum").is_none());
        assert!(properties["labels"]["items"].get("enum").is_none());
        assert_eq!(properties["kind"]["enum"], json!(["bug", "docs"]));
        // Values spread over two parameters are no echo of either.
        let a: Vec<Box<str>> = vec!["bug".into()];
        let b: Vec<Box<str>> = vec!["docs".into()];
        drop_echoed_enums(&mut listing, &[&a, &b]);
        assert_eq!(
            listing["properties"]["kind"]["enum"],
            json!(["bug", "docs"])
        );
    }
}
