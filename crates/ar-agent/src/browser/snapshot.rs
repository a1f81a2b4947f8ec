//! The page snapshot: a compact outline for a model, and the same interactive
//! elements as data for code.
//!
//! The text form follows the line grammar of Playwright MCP's accessibility
//! snapshots, which current models already read well:
//!
//! ```text
//! - heading "Products" [level=1]
//! - navigation:
//!   - link "Next page" [ref=e4] [url=/products?page=2]
//! - form:
//!   - textbox "Email" [ref=e7] [type=email]
//!   - combobox "Colour" [ref=e8]: Red
//!   - button "Save" [ref=e9]
//! - text: 3 items in your basket
//! ```
//!
//! One line per node, two spaces of indent per nesting level, the role, the
//! accessible name in quotes, attributes in brackets, and after a colon the
//! node's value or text. Only nodes that say something are kept (visible
//! text, headings, landmarks that hold content, interactive elements), so a
//! typical page costs a few hundred tokens rather than its HTML's tens of
//! thousands.

use std::fmt::{self, Write as _};

use serde::{Deserialize, Serialize};

use super::Ref;

/// What the page shows now: URL, title, outline, and its interactive elements.
///
/// ```
/// use ar_agent::browser::{ElementInfo, OutlineLine, Ref, Snapshot};
///
/// let snapshot = Snapshot {
///     url: "https://shop.test/".into(),
///     title: "Shop".into(),
///     lines: vec![
///         OutlineLine::new(0, "heading").name("Products").attr("level", "1"),
///         OutlineLine::new(0, "link").name("Next page").reference(Ref::new(4)),
///         OutlineLine::new(0, "text").value("3 items"),
///     ],
///     elements: vec![ElementInfo::new(Ref::new(4), "link", "Next page")],
///     omitted_lines: 0,
/// };
/// assert_eq!(
///     snapshot.outline(),
///     "- heading \"Products\" [level=1]\n- link \"Next page\" [ref=e4]\n- text: 3 items\n"
/// );
/// assert!(snapshot.to_string().starts_with("url: https://shop.test/\ntitle: Shop\n"));
/// assert_eq!(snapshot.element(Ref::new(4)).unwrap().name, "Next page");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Snapshot {
    /// The page's URL.
    pub url: String,
    /// The document title.
    pub title: String,
    /// The outline, in document order.
    pub lines: Vec<OutlineLine>,
    /// Every element that has a ref, in document order.
    pub elements: Vec<ElementInfo>,
    /// Lines left out because the page was larger than the snapshot budget.
    pub omitted_lines: usize,
}

impl Snapshot {
    /// The outline as text, one line per node (what a model reads).
    #[must_use]
    pub fn outline(&self) -> String {
        let mut out = String::new();
        for (i, line) in self.lines.iter().enumerate() {
            // Writing into a String cannot fail.
            let _ = write!(out, "{line}");
            // A line whose children follow (indented) ends with a colon.
            let has_children = self
                .lines
                .get(i + 1)
                .is_some_and(|next| next.depth > line.depth);
            if has_children && line.value.is_none() {
                out.push(':');
            }
            out.push('\n');
        }
        if self.omitted_lines > 0 {
            let _ = writeln!(
                out,
                "- note: {} more lines not shown (scroll or act to narrow down)",
                self.omitted_lines
            );
        }
        out
    }

    /// The element with this ref, if this snapshot shows it.
    #[must_use]
    pub fn element(&self, reference: Ref) -> Option<&ElementInfo> {
        self.elements.iter().find(|e| e.reference == reference)
    }

    /// Size of the rendered snapshot in bytes (what it costs to send).
    #[must_use]
    pub fn text_len(&self) -> usize {
        self.to_string().len()
    }
}

impl fmt::Display for Snapshot {
    /// `url:` and `title:` lines, then the outline.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "url: {}", self.url)?;
        writeln!(f, "title: {}", self.title)?;
        f.write_str(&self.outline())
    }
}

/// One line of the outline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutlineLine {
    /// Nesting level (0 = top).
    pub depth: u16,
    /// ARIA role (`heading`, `link`, `button`, `textbox`, ...) or `text` for plain text.
    pub role: String,
    /// The accessible name, if any.
    pub name: Option<String>,
    /// The ref, for interactive elements.
    pub reference: Option<Ref>,
    /// Attributes shown in brackets, in order: `("level", "1")` is `[level=1]`,
    /// `("checked", "")` is `[checked]`.
    pub attrs: Vec<(String, String)>,
    /// Text after the colon: a field's value, a select's choice, or the text itself.
    pub value: Option<String>,
}

impl OutlineLine {
    /// A line with a role and nothing else.
    #[must_use]
    pub fn new(depth: u16, role: impl Into<String>) -> Self {
        Self {
            depth,
            role: role.into(),
            name: None,
            reference: None,
            attrs: Vec::new(),
            value: None,
        }
    }

    /// With an accessible name.
    #[must_use]
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// With a ref.
    #[must_use]
    pub fn reference(mut self, reference: Ref) -> Self {
        self.reference = Some(reference);
        self
    }

    /// With one more bracketed attribute (empty value: a flag like `[checked]`).
    #[must_use]
    pub fn attr(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.attrs.push((key.into(), value.into()));
        self
    }

    /// With text after the colon.
    #[must_use]
    pub fn value(mut self, value: impl Into<String>) -> Self {
        self.value = Some(value.into());
        self
    }
}

impl fmt::Display for OutlineLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for _ in 0..self.depth {
            f.write_str("  ")?;
        }
        write!(f, "- {}", self.role)?;
        if let Some(name) = &self.name {
            f.write_str(" \"")?;
            for c in name.chars() {
                match c {
                    '"' => f.write_str("\\\"")?,
                    '\\' => f.write_str("\\\\")?,
                    '\n' | '\r' | '\t' => f.write_char(' ')?,
                    c => f.write_char(c)?,
                }
            }
            f.write_char('"')?;
        }
        if let Some(reference) = self.reference {
            write!(f, " [ref={reference}]")?;
        }
        for (key, value) in &self.attrs {
            if value.is_empty() {
                write!(f, " [{key}]")?;
            } else {
                write!(f, " [{key}={value}]")?;
            }
        }
        match &self.value {
            Some(value) => write!(f, ": {}", value.replace(['\n', '\r'], " ")),
            None => Ok(()),
        }
    }
}

/// An interactive element, as data, for code that drives the browser without
/// parsing text (the no-LLM explorer).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ElementInfo {
    /// Its ref, valid for the browser actions.
    pub reference: Ref,
    /// ARIA role: `link`, `button`, `textbox`, `searchbox`, `checkbox`,
    /// `radio`, `combobox`, `listbox`, `spinbutton`, `slider`, `switch`, `tab`,
    /// `menuitem`, `option`, `clickable` (something with a pointer cursor and
    /// no role), ...
    pub role: String,
    /// The accessible name (may be empty).
    pub name: String,
    /// The lower-case tag name (`a`, `button`, `input`, ...).
    pub tag: String,
    /// For links: the absolute target URL.
    pub href: Option<String>,
    /// For `<input>`: its `type` (`text`, `email`, `password`, `submit`, ...).
    pub input_type: Option<String>,
    /// The form field's `name` attribute (what the server receives).
    pub field_name: Option<String>,
    /// A field's current value (never shown for passwords).
    pub value: Option<String>,
    /// Whether a checkbox/radio/switch is checked, or a tab selected.
    pub checked: Option<bool>,
    /// Whether the element is disabled.
    pub disabled: bool,
    /// Whether a form field is `required`.
    pub required: bool,
    /// For selects: the options.
    pub options: Vec<SelectOption>,
    /// Which form of the page (0-based, document order) holds this element.
    pub form: Option<u32>,
    /// Which open dialog (0-based, document order) holds this element: a
    /// modal's fields and its footer buttons share it even when the buttons
    /// sit outside the `<form>`. A popup menu laid over the page (a menu
    /// bar's, a context menu, a dropdown) counts as one: it too stands
    /// between a person and the page until it is closed.
    #[serde(default)]
    pub dialog: Option<u32>,
    /// The repeated container this element sits in, numbered per snapshot:
    /// elements of the same list, table, menu or card grid share it (each in
    /// its own row, item or card of the same kind), so a driver can try a
    /// few entries of a list instead of all of them.
    #[serde(default)]
    pub group: Option<u32>,
}

impl ElementInfo {
    /// An element with a ref, role and name; other fields empty.
    #[must_use]
    pub fn new(reference: Ref, role: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            reference,
            role: role.into(),
            name: name.into(),
            tag: String::new(),
            href: None,
            input_type: None,
            field_name: None,
            value: None,
            checked: None,
            disabled: false,
            required: false,
            options: Vec::new(),
            form: None,
            dialog: None,
            group: None,
        }
    }

    /// Whether typing into it makes sense.
    #[must_use]
    pub fn is_text_field(&self) -> bool {
        matches!(
            self.role.as_str(),
            "textbox" | "searchbox" | "spinbutton" | "combobox"
        ) && self.options.is_empty()
    }
}

/// One `<option>` of a select.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SelectOption {
    /// The submitted value.
    pub value: String,
    /// The visible label.
    pub label: String,
    /// Whether it is selected now.
    pub selected: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn containers_end_with_a_colon_and_children_indent() {
        let lines = vec![
            OutlineLine::new(0, "form").name("Sign up"),
            OutlineLine::new(1, "textbox")
                .name("Email")
                .reference(Ref::new(7))
                .attr("type", "email")
                .value("a@b.c"),
            OutlineLine::new(1, "checkbox")
                .name("Remember me")
                .reference(Ref::new(8))
                .attr("checked", ""),
        ];
        let snapshot = Snapshot {
            lines,
            ..Snapshot::default()
        };
        assert_eq!(
            snapshot.outline(),
            "- form \"Sign up\":\n\
             \x20 - textbox \"Email\" [ref=e7] [type=email]: a@b.c\n\
             \x20 - checkbox \"Remember me\" [ref=e8] [checked]\n"
        );
    }

    #[test]
    fn names_with_quotes_and_newlines_stay_on_one_line() {
        let line = OutlineLine::new(0, "button").name("Say \"hi\"\nnow");
        assert_eq!(line.to_string(), "- button \"Say \\\"hi\\\" now\"");
    }

    #[test]
    fn omitted_lines_are_announced() {
        let snapshot = Snapshot {
            lines: vec![OutlineLine::new(0, "text").value("a")],
            omitted_lines: 40,
            ..Snapshot::default()
        };
        assert!(
            snapshot
                .outline()
                .ends_with("- note: 40 more lines not shown (scroll or act to narrow down)\n")
        );
    }
}
