//! Plausible values for form fields, chosen from the field's type and name
//! the way a person filling a form would: an email where an email goes, a
//! number in a quantity box. Values are fixed so runs are repeatable.

use super::plan::run_around;
use crate::browser::{ElementInfo, SelectOption};

/// What to do with one form field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum FieldAction {
    /// Type this text (replacing what is there).
    Type(String),
    /// Choose this option (by value).
    Select(String),
    /// Click to check it.
    Check,
    /// Leave it as it is.
    Leave,
}

/// Decides how to fill `field`, one of `form`'s members (its radio group is
/// read from them). `upload` is a path to a small file for file inputs.
pub(crate) fn fill(field: &ElementInfo, form: &[ElementInfo], upload: Option<&str>) -> FieldAction {
    if field.disabled {
        return FieldAction::Leave;
    }
    if !field.options.is_empty() {
        return choose_option(&field.options).map_or(FieldAction::Leave, FieldAction::Select);
    }
    match field.role.as_str() {
        "checkbox" | "switch" => {
            return if field.required && field.checked != Some(true) {
                FieldAction::Check
            } else {
                FieldAction::Leave
            };
        }
        "radio" => return choose_radio(field, form),
        _ => {}
    }
    let input_type = field
        .input_type
        .as_deref()
        .unwrap_or("text")
        .to_ascii_lowercase();
    if input_type == "file" {
        return upload.map_or(FieldAction::Leave, |path| {
            FieldAction::Type(path.to_owned())
        });
    }
    if matches!(
        input_type.as_str(),
        "hidden" | "submit" | "button" | "reset" | "image"
    ) {
        return FieldAction::Leave;
    }
    if !field.is_text_field() && field.tag != "textarea" && field.tag != "input" {
        return FieldAction::Leave;
    }
    // A prefilled field (a quantity of 1, an edit form) already holds a valid value.
    if field.value.as_deref().is_some_and(|v| !v.is_empty()) {
        return FieldAction::Leave;
    }
    FieldAction::Type(text_for(&input_type, &hint(field)).to_owned())
}

/// One option per radio group, as a person picks it: a group that already has
/// a choice keeps it, and a group without one gets its first option. Clicking
/// every other option in turn would leave the group on its last one, and a
/// group that switches what the form asks for ("Form" or "JSON", "Text" or
/// "Chat") would take the form's fields away before they are filled.
fn choose_radio(field: &ElementInfo, form: &[ElementInfo]) -> FieldAction {
    let group = radio_group(field, form);
    let first = group.first().map(|radio| radio.reference);
    if group.iter().any(|radio| radio.checked == Some(true)) || first != Some(field.reference) {
        FieldAction::Leave
    } else {
        FieldAction::Check
    }
}

/// The radios of `field`'s group among `form`'s members: those sharing its
/// field name; for a radio without one (an ARIA `role="radio"`), the run of
/// unnamed radios around it. Just `field` when it is not among the members.
fn radio_group<'a>(field: &'a ElementInfo, form: &'a [ElementInfo]) -> Vec<&'a ElementInfo> {
    let is_radio = |e: &ElementInfo| e.role == "radio";
    let unnamed = |e: &ElementInfo| is_radio(e) && named(e).is_none();
    let Some(run) = run_around(form, field.reference, unnamed) else {
        return vec![field];
    };
    match named(field) {
        Some(name) => form
            .iter()
            .filter(|e| is_radio(e) && named(e) == Some(name))
            .collect(),
        None => run.iter().collect(),
    }
}

/// A field's name in its form, if it has a non-empty one.
fn named(element: &ElementInfo) -> Option<&str> {
    element.field_name.as_deref().filter(|n| !n.is_empty())
}

/// The lowercased name, field name and type, searched for hints.
fn hint(field: &ElementInfo) -> String {
    format!(
        "{} {}",
        field.field_name.as_deref().unwrap_or(""),
        field.name
    )
    .to_lowercase()
}

fn text_for(input_type: &str, hint: &str) -> &'static str {
    match input_type {
        "email" => return "explorer@example.com",
        "password" => return "Explorer-pass-1",
        "number" | "range" => return if hint.contains("year") { "2024" } else { "2" },
        "tel" => return "+44 20 7946 0958",
        "url" => return "https://example.com/",
        "date" => return "2024-03-15",
        "datetime-local" => return "2024-03-15T10:30",
        "time" => return "10:30",
        "month" => return "2024-03",
        "week" => return "2024-W11",
        "color" => return "#3366cc",
        "search" => return "lamp",
        _ => {}
    }
    const BY_NAME: &[(&[&str], &str)] = &[
        (&["email", "e-mail"], "explorer@example.com"),
        (&["password", "passcode"], "Explorer-pass-1"),
        (&["first"], "Ada"),
        (&["last", "surname", "family"], "Lovelace"),
        (&["user"], "explorer"),
        (&["company", "organisation", "organization"], "Example Ltd"),
        (&["phone", "mobile", "tel"], "+44 20 7946 0958"),
        (&["zip", "postal", "postcode"], "SW1A 1AA"),
        (&["city", "town"], "London"),
        (
            &["street", "address", "line1", "line 1"],
            "10 Downing Street",
        ),
        (&["country"], "GB"),
        (&["quantity", "qty", "amount", "count", "weight"], "2"),
        (&["price"], "10"),
        (&["age"], "36"),
        (&["year"], "2024"),
        (
            &["url", "website", "homepage", "link"],
            "https://example.com/",
        ),
        (&["search", "query", "find", "term", "keyword", "q"], "lamp"),
        (
            &["full name", "fullname", "your name", "name"],
            "Ada Lovelace",
        ),
        (&["title", "subject", "summary"], "Question about my order"),
        (
            &[
                "message",
                "comment",
                "body",
                "description",
                "note",
                "review",
                "text",
                "details",
            ],
            "Hello from the ar explorer.",
        ),
    ];
    let hint_words: Vec<&str> = hint
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let joined = hint_words.join(" ");
    // Phrases match as phrases; short words only whole (`age` is not in
    // `message`); longer words also inside a word (`name` in `username`).
    let matches = |w: &str| {
        if w.contains(' ') {
            joined.contains(w)
        } else {
            hint_words
                .iter()
                .any(|h| *h == w || (w.len() >= 4 && h.contains(w)))
        }
    };
    BY_NAME
        .iter()
        .find(|(words, _)| words.iter().any(|w| matches(w)))
        .map_or("test", |(_, value)| value)
}

/// The first option with a non-empty value that is not already selected, so a
/// filter actually filters; otherwise leave the select alone.
fn choose_option(options: &[SelectOption]) -> Option<String> {
    options
        .iter()
        .find(|o| !o.selected && !o.value.is_empty())
        .map(|o| o.value.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::browser::Ref;

    fn input(input_type: &str, field_name: &str, label: &str) -> ElementInfo {
        let mut e = ElementInfo::new(
            Ref::new(1),
            if input_type == "search" {
                "searchbox"
            } else {
                "textbox"
            },
            label,
        );
        e.tag = "input".into();
        e.input_type = Some(input_type.into());
        e.field_name = Some(field_name.into());
        e
    }

    #[test]
    fn values_follow_type_then_name() {
        assert_eq!(
            fill(&input("email", "login", "Login"), &[], None),
            FieldAction::Type("explorer@example.com".into())
        );
        assert_eq!(
            fill(&input("text", "postcode", "Postcode"), &[], None),
            FieldAction::Type("SW1A 1AA".into())
        );
        assert_eq!(
            fill(&input("text", "city", "Town or city"), &[], None),
            FieldAction::Type("London".into())
        );
        assert_eq!(
            fill(&input("search", "q", "Search products"), &[], None),
            FieldAction::Type("lamp".into())
        );
        assert_eq!(
            fill(&input("text", "zzz", "Mystery"), &[], None),
            FieldAction::Type("test".into())
        );
        assert_eq!(
            fill(&input("text", "message", "Your message"), &[], None),
            FieldAction::Type("Hello from the ar explorer.".into())
        );
        assert_eq!(
            fill(&input("text", "username", "Username"), &[], None),
            FieldAction::Type("explorer".into())
        );
        assert_eq!(
            fill(&input("hidden", "csrf", ""), &[], None),
            FieldAction::Leave
        );
    }

    #[test]
    fn prefilled_fields_and_optional_checkboxes_are_left_alone() {
        let mut quantity = input("number", "quantity", "Quantity");
        quantity.value = Some("1".into());
        assert_eq!(fill(&quantity, &[], None), FieldAction::Leave);
        let mut check = ElementInfo::new(Ref::new(2), "checkbox", "Keep me signed in");
        check.checked = Some(false);
        assert_eq!(fill(&check, &[], None), FieldAction::Leave);
        check.required = true;
        assert_eq!(fill(&check, &[], None), FieldAction::Check);
    }

    #[test]
    fn selects_pick_a_real_option() {
        let mut select = ElementInfo::new(Ref::new(3), "combobox", "Status");
        select.options = vec![
            SelectOption {
                value: String::new(),
                label: "Any".into(),
                selected: true,
            },
            SelectOption {
                value: "paid".into(),
                label: "paid".into(),
                selected: false,
            },
        ];
        assert_eq!(fill(&select, &[], None), FieldAction::Select("paid".into()));
    }

    fn radio(n: u32, field_name: Option<&str>, label: &str, checked: bool) -> ElementInfo {
        let mut e = ElementInfo::new(Ref::new(n), "radio", label);
        e.tag = "input".into();
        e.input_type = Some("radio".into());
        e.field_name = field_name.map(str::to_owned);
        e.checked = Some(checked);
        e
    }

    fn actions(form: &[ElementInfo]) -> Vec<FieldAction> {
        form.iter().map(|field| fill(field, form, None)).collect()
    }

    #[test]
    fn a_radio_group_with_a_choice_keeps_it() {
        // "Form" is chosen; "JSON" would replace the form's fields.
        let form = [
            radio(1, Some("method"), "Form", true),
            radio(2, Some("method"), "JSON", false),
            ElementInfo {
                reference: Ref::new(3),
                ..input("text", "name", "Name")
            },
        ];
        assert_eq!(
            actions(&form),
            [
                FieldAction::Leave,
                FieldAction::Leave,
                FieldAction::Type("Ada Lovelace".into())
            ]
        );
    }

    #[test]
    fn a_radio_group_without_a_choice_gets_its_first_option_only() {
        let form = [
            radio(1, Some("size"), "Small", false),
            radio(2, Some("size"), "Large", false),
            radio(3, Some("speed"), "Standard", false),
            radio(4, Some("speed"), "Express", true),
        ];
        assert_eq!(
            actions(&form),
            [
                FieldAction::Check,
                FieldAction::Leave,
                FieldAction::Leave,
                FieldAction::Leave
            ]
        );
    }

    #[test]
    fn unnamed_radios_group_by_the_run_they_stand_in() {
        let mut note = input("text", "note", "Note");
        note.reference = Ref::new(3);
        let form = [
            radio(1, None, "Monthly", false),
            radio(2, None, "Yearly", false),
            note,
            radio(4, None, "Email", true),
            radio(5, None, "Post", false),
        ];
        assert_eq!(
            actions(&form),
            [
                FieldAction::Check,
                FieldAction::Leave,
                FieldAction::Type("Hello from the ar explorer.".into()),
                FieldAction::Leave,
                FieldAction::Leave
            ]
        );
    }

    #[test]
    fn file_inputs_get_the_upload_path() {
        let file = input("file", "receipt", "Receipt");
        assert_eq!(
            fill(&file, &[], Some("/tmp/x.txt")),
            FieldAction::Type("/tmp/x.txt".into())
        );
        assert_eq!(fill(&file, &[], None), FieldAction::Leave);
    }
}
