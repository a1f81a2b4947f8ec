//! Inference from an already-parsed `serde_json::Value`.

use serde_json::{Number, Value};

use crate::limits::MAX_DEPTH;
use crate::node::Node;

/// Adds `value` (found at nesting `depth`) to `node`. Recursion stops at [`MAX_DEPTH`].
pub(crate) fn add(node: &mut Node, value: &Value, depth: usize) {
    match value {
        Value::Null => node.nulls += 1,
        Value::Bool(_) => node.bools += 1,
        Value::Number(n) if is_integer(n) => node.ints += 1,
        Value::Number(_) => node.floats += 1,
        Value::String(s) => node.add_string(s.as_bytes()),
        Value::Array(items) => {
            node.arrays += 1;
            if depth >= MAX_DEPTH {
                node.capped += 1;
                return;
            }
            let stats = node.array.get_or_insert_with(Box::default);
            stats.count += 1;
            for item in items {
                add(&mut stats.items, item, depth + 1);
            }
        }
        Value::Object(map) => {
            node.objects += 1;
            if depth >= MAX_DEPTH {
                node.capped += 1;
                return;
            }
            let stats = node.object.get_or_insert_with(Box::default);
            let serial = stats.begin();
            for (key, value) in map {
                let target = match stats.slot(key.as_bytes(), serial) {
                    Some(i) => &mut stats.props[i].node,
                    None => stats.extra_mut(),
                };
                add(target, value, depth + 1);
            }
        }
    }
}

/// Integer policy for parsed values: `i64`/`u64` are integers; so is an `f64` that is integral
/// and outside the 64-bit range, because serde_json (without `arbitrary_precision`) parses an
/// integer literal too big for `u64` into an `f64`. `1.0` stays a number, as its literal says.
/// With `arbitrary_precision` on, the literal itself is checked for a fraction or exponent.
fn is_integer(n: &Number) -> bool {
    if n.is_i64() || n.is_u64() {
        return true;
    }
    let text = n.to_string();
    if !text.contains(['.', 'e', 'E']) {
        return true;
    }
    n.as_f64().is_some_and(|f| {
        f.fract() == 0.0
            && !(-9_223_372_036_854_775_808.0..18_446_744_073_709_551_616.0).contains(&f)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_follow_the_integer_policy() {
        let mut node = Node::default();
        for v in [
            json!(1),
            json!(-1),
            json!(u64::MAX),
            json!(1.0),
            json!(1.5),
            json!(1e300),
        ] {
            add(&mut node, &v, 0);
        }
        assert_eq!((node.ints, node.floats), (4, 2));
    }

    #[test]
    fn big_integer_literal_stays_an_integer() {
        let v: Value = serde_json::from_str("123456789012345678901234567890").expect("valid JSON");
        let mut node = Node::default();
        add(&mut node, &v, 0);
        assert_eq!(node.ints, 1);
    }

    #[test]
    fn depth_is_capped() {
        let mut v = json!(1);
        for _ in 0..MAX_DEPTH + 5 {
            v = json!([v]);
        }
        let mut node = Node::default();
        add(&mut node, &v, 0);
        let mut cur = &node;
        let mut levels = 0;
        while let Some(a) = &cur.array {
            cur = &a.items;
            levels += 1;
        }
        assert_eq!(levels, MAX_DEPTH);
        assert_eq!(cur.capped, 1);
    }
}
