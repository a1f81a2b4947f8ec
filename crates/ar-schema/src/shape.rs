//! `shape`: a compact `path → type` outline of a body, for readers (often LLM agents) that need
//! its structure without paying for its content.
//!
//! One line per position, depth first, properties sorted:
//!
//! ```text
//! $ object
//! $.data object
//! $.data.items array
//! $.data.items[] object
//! $.data.items[].id integer
//! $.data.items[].tags? array(empty)
//! $.next string(uri)|null
//! ```
//!
//! `?` marks a key missing from some objects, `.*` the values of a map, `["…"]` a key that is not
//! a plain identifier. Past `max_depth` a line ends in ` …`; past `max_bytes` the outline stops
//! with a line saying how many paths were left out. Output never exceeds `max_bytes` by more than
//! that last line.

use crate::format;
use crate::node::Node;
use crate::render::map_values;

/// Limits for [`crate::Schema::shape`] and [`crate::shape`].
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ShapeOptions {
    /// Nesting levels listed below the root. Default: 12.
    pub max_depth: usize,
    /// Bytes of outline, not counting the final "more paths" line. Default: 4096.
    pub max_bytes: usize,
}

impl Default for ShapeOptions {
    fn default() -> Self {
        Self {
            max_depth: 12,
            max_bytes: 4096,
        }
    }
}

impl ShapeOptions {
    /// Sets the nesting levels listed.
    #[must_use]
    pub fn max_depth(mut self, levels: usize) -> Self {
        self.max_depth = levels;
        self
    }

    /// Sets the byte budget of the outline.
    #[must_use]
    pub fn max_bytes(mut self, bytes: usize) -> Self {
        self.max_bytes = bytes;
        self
    }
}

/// Longest key shown; longer keys are cut with `…`.
const MAX_SHOWN_KEY: usize = 48;

pub(crate) fn shape(root: &Node, opts: &ShapeOptions) -> String {
    let mut lines = Vec::new();
    walk(root, "$".to_string(), false, 0, opts, &mut lines);
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate() {
        if out.len() + line.len() + 1 > opts.max_bytes {
            out.push_str(&format!("… {} more paths\n", lines.len() - i));
            break;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

fn walk(
    node: &Node,
    path: String,
    optional: bool,
    depth: usize,
    o: &ShapeOptions,
    out: &mut Vec<String>,
) {
    let deeper = depth < o.max_depth;
    let map = node.object.as_deref().and_then(map_values);
    let has_children = node
        .object
        .as_deref()
        .is_some_and(|s| !s.props.is_empty() || s.extra.is_some())
        || node.array.as_deref().is_some_and(|a| a.items.count() > 0);
    let mark = if optional { "?" } else { "" };
    let more = if has_children && !deeper { " …" } else { "" };
    out.push(format!(
        "{path}{mark} {}{more}",
        summary(node, map.is_some())
    ));
    if !deeper {
        return;
    }
    if let Some(stats) = node.object.as_deref() {
        if let Some(values) = &map {
            walk(values, format!("{path}.*"), false, depth + 1, o, out);
        } else {
            let mut props: Vec<_> = stats.props.iter().collect();
            props.sort_by(|a, b| a.name.cmp(&b.name));
            let all_inspected = node.objects == stats.count;
            for p in props {
                let optional = !(all_inspected && p.present == stats.count);
                walk(
                    &p.node,
                    format!("{path}{}", segment(&p.name)),
                    optional,
                    depth + 1,
                    o,
                    out,
                );
            }
            if let Some(extra) = stats.extra.as_deref() {
                walk(extra, format!("{path}.*"), true, depth + 1, o, out);
            }
        }
    }
    if let Some(stats) = node.array.as_deref()
        && stats.items.count() > 0
    {
        walk(&stats.items, format!("{path}[]"), false, depth + 1, o, out);
    }
}

/// `object|null`, `string(date-time)`, `array(empty)`, `object(map)`, ...
fn summary(node: &Node, map: bool) -> String {
    let mut parts: Vec<String> = Vec::new();
    let truncated = if node.capped > 0 { "(truncated)" } else { "" };
    if node.objects > 0 {
        parts.push(format!("object{}", if map { "(map)" } else { truncated }));
    }
    if node.arrays > 0 {
        let empty = node.array.as_deref().is_some_and(|a| a.items.count() == 0);
        parts.push(format!(
            "array{}",
            if empty { "(empty)" } else { truncated }
        ));
    }
    if node.strings.count > 0 {
        match format::name(node.strings.formats) {
            Some(f) => parts.push(format!("string({f})")),
            None => parts.push("string".into()),
        }
    }
    if node.ints + node.floats > 0 {
        parts.push(if node.floats > 0 { "number" } else { "integer" }.into());
    }
    if node.bools > 0 {
        parts.push("boolean".into());
    }
    if node.nulls > 0 {
        parts.push("null".into());
    }
    if parts.is_empty() {
        return "unknown".into();
    }
    parts.join("|")
}

fn segment(key: &str) -> String {
    let plain = !key.is_empty()
        && key.len() <= MAX_SHOWN_KEY
        && !key.as_bytes()[0].is_ascii_digit()
        && key
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-' || c == b'$');
    if plain {
        return format!(".{key}");
    }
    let shown: String = if key.len() > MAX_SHOWN_KEY {
        let mut end = MAX_SHOWN_KEY;
        while !key.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}…", &key[..end])
    } else {
        key.to_string()
    };
    format!("[{}]", serde_json::Value::String(shown))
}
