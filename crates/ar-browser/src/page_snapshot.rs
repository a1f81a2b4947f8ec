//! Runs `snapshot.js` in the page and turns its result into a [`Snapshot`].
//!
//! The script does the DOM work (visibility, roles, accessible names) in one
//! round trip and returns plain arrays plus the element handles; this module
//! only decodes them, defensively: a page can make the script return odd data
//! (a monkey-patched `Array`), which must give an error, never a panic.

use ar_agent::browser::{ElementInfo, OutlineLine, Ref, SelectOption, Snapshot};
use serde_json::{Value, json};

/// The snapshot script (see the comments at its top).
pub(crate) const SCRIPT: &str = include_str!("snapshot.js");

/// Key under which WebDriver serialises an element reference.
pub(crate) const ELEMENT_KEY: &str = "element-6066-11e4-a52e-4f735466cecf";

/// Budget: lines and characters per text line.
pub(crate) fn script_args() -> Vec<Value> {
    vec![json!({ "maxLines": 1000, "maxText": 200 })]
}

/// Decodes the script's result; `assign` maps a WebDriver element id to its ref.
pub(crate) fn decode(
    result: &Value,
    mut assign: impl FnMut(&str) -> Ref,
) -> Result<Snapshot, String> {
    let field = |name: &str| {
        result
            .get(name)
            .ok_or_else(|| format!("no `{name}` in result"))
    };
    let handles = field("handles")?
        .as_array()
        .ok_or("`handles` is not an array")?;
    let mut refs = Vec::with_capacity(handles.len());
    for handle in handles {
        let id = handle
            .get(ELEMENT_KEY)
            .and_then(Value::as_str)
            .ok_or("a handle is not an element reference")?;
        refs.push(assign(id));
    }
    let lines = field("lines")?
        .as_array()
        .ok_or("`lines` is not an array")?
        .iter()
        .map(|line| decode_line(line, &refs))
        .collect::<Result<Vec<_>, _>>()?;
    let elements = field("infos")?
        .as_array()
        .ok_or("`infos` is not an array")?
        .iter()
        .zip(&refs)
        .map(|(info, &reference)| decode_info(info, reference))
        .collect();
    Ok(Snapshot {
        url: str_of(result.get("url")),
        title: str_of(result.get("title")),
        lines,
        elements,
        omitted_lines: result
            .get("omitted")
            .and_then(Value::as_u64)
            .and_then(|n| usize::try_from(n).ok())
            .unwrap_or(0),
    })
}

fn decode_line(line: &Value, refs: &[Ref]) -> Result<OutlineLine, String> {
    let parts = line.as_array().ok_or("a line is not an array")?;
    let at = |i: usize| parts.get(i).unwrap_or(&Value::Null);
    let depth = at(0)
        .as_u64()
        .and_then(|d| u16::try_from(d).ok())
        .unwrap_or(0);
    let mut out = OutlineLine::new(depth, str_of(Some(at(1))));
    out.name = at(2).as_str().map(str::to_owned);
    out.reference = at(3)
        .as_i64()
        .and_then(|i| usize::try_from(i).ok())
        .and_then(|i| refs.get(i).copied());
    if let Some(attrs) = at(4).as_array() {
        for pair in attrs {
            let key = str_of(pair.get(0));
            if !key.is_empty() {
                out.attrs.push((key, str_of(pair.get(1))));
            }
        }
    }
    out.value = at(5).as_str().map(str::to_owned);
    Ok(out)
}

fn decode_info(info: &Value, reference: Ref) -> ElementInfo {
    let text = |key: &str| info.get(key).and_then(Value::as_str).map(str::to_owned);
    let mut element = ElementInfo::new(
        reference,
        str_of(info.get("role")),
        str_of(info.get("name")),
    );
    element.tag = str_of(info.get("tag"));
    element.href = text("href");
    element.input_type = text("type");
    element.field_name = text("fieldName");
    element.value = text("value");
    element.checked = info.get("checked").and_then(Value::as_bool);
    element.disabled = info
        .get("disabled")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    element.required = info
        .get("required")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let index = |key: &str| {
        info.get(key)
            .and_then(Value::as_u64)
            .and_then(|i| u32::try_from(i).ok())
    };
    element.form = index("form");
    element.dialog = index("dialog");
    element.group = index("group");
    element.options = info
        .get("options")
        .and_then(Value::as_array)
        .map(|options| {
            options
                .iter()
                .map(|o| SelectOption {
                    value: str_of(o.get("value")),
                    label: str_of(o.get("label")),
                    selected: o.get("selected").and_then(Value::as_bool).unwrap_or(false),
                })
                .collect()
        })
        .unwrap_or_default();
    element
}

fn str_of(value: Option<&Value>) -> String {
    value.and_then(Value::as_str).unwrap_or_default().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_get_the_refs_of_their_handles() {
        let result = json!({
            "url": "http://x/", "title": "X", "omitted": 0,
            "handles": [{ ELEMENT_KEY: "id-a" }, { ELEMENT_KEY: "id-b" }],
            "lines": [
                [0, "heading", "Hi", -1, [["level", "1"]], null],
                [0, "link", "Next", 0, [["url", "/2"]], null],
                [0, "textbox", "Email", 1, [["type", "email"]], "a@b.c"],
            ],
            "infos": [
                { "role": "link", "name": "Next", "tag": "a", "href": "http://x/2" },
                { "role": "textbox", "name": "Email", "tag": "input", "type": "email",
                  "fieldName": "email", "required": true, "form": 0 },
            ],
        });
        let snapshot = decode(&result, |id| Ref::new(if id == "id-a" { 7 } else { 8 })).unwrap();
        assert_eq!(
            snapshot.outline(),
            "- heading \"Hi\" [level=1]\n- link \"Next\" [ref=e7] [url=/2]\n\
             - textbox \"Email\" [ref=e8] [type=email]: a@b.c\n"
        );
        let email = snapshot.element(Ref::new(8)).unwrap();
        assert_eq!(email.field_name.as_deref(), Some("email"));
        assert!(email.required);
        assert_eq!(email.form, Some(0));
    }

    #[test]
    fn odd_results_are_errors_not_panics() {
        for bad in [
            json!(null),
            json!({"handles": 3}),
            json!({"handles": [1], "lines": []}),
        ] {
            assert!(decode(&bad, |_| Ref::new(1)).is_err(), "{bad}");
        }
    }
}
