//! Parameter names from context: `/users/{userId}/orders/{orderId}`.
//!
//! A parameter is named after the nearest collection segment before it
//! (singularised, camelCased), with a suffix from its kind: ids get `Id`,
//! slugs get nothing (`/products/{product}`). Two slug parameters in a row
//! after one collection are an owner/name pair (`/repos/{owner}/{repo}`).
//! A name learnt from a body field (provenance) wins over all of this.
//! Names are made unique within a path (`id`, `id2`).

use super::SegmentKind;

/// What the namer needs to know about one segment of a template.
pub(crate) enum NameInput<'a> {
    Literal(&'a str),
    /// `kind` is `None` for slugs (folded literals); `hint` is a name learnt from a body field.
    Param {
        kind: Option<SegmentKind>,
        hint: Option<&'a str>,
    },
}

/// One name per `Param` input, in order.
pub(crate) fn name_params(segments: &[NameInput<'_>]) -> Vec<String> {
    let mut names = Vec::new();
    let mut used: Vec<String> = Vec::new();
    for (i, seg) in segments.iter().enumerate() {
        let NameInput::Param { kind, hint } = seg else {
            continue;
        };
        let collection = segments[..i].iter().rev().find_map(|s| match s {
            NameInput::Literal(text) if !is_noise(text) => Some(*text),
            _ => None,
        });
        let base = collection.map(|c| camel(&singular(c)));
        let slug = kind.is_none();
        let next_is_slug_param = matches!(
            segments.get(i + 1),
            Some(NameInput::Param {
                kind: None,
                hint: None
            })
        );
        let prev_is_param = i > 0 && matches!(segments[i - 1], NameInput::Param { .. });
        let name = match (hint, kind) {
            (Some(hint), _) => (*hint).to_string(),
            (_, Some(SegmentKind::Email)) => "email".to_string(),
            (_, Some(SegmentKind::Date)) => "date".to_string(),
            (_, Some(SegmentKind::Version)) => "version".to_string(),
            (_, Some(SegmentKind::Locale)) => "locale".to_string(),
            (_, Some(SegmentKind::Ip)) => "address".to_string(),
            (_, Some(SegmentKind::Encoded)) => base.unwrap_or_else(|| "name".to_string()),
            (_, Some(SegmentKind::Timestamp)) => "timestamp".to_string(),
            (_, Some(SegmentKind::IssueKey)) => "issueKey".to_string(),
            (_, Some(SegmentKind::Pair)) => base.unwrap_or_else(|| "pair".to_string()),
            (_, Some(SegmentKind::List)) => match base {
                Some(b) => format!("{b}Ids"),
                None => "ids".to_string(),
            },
            (_, Some(_)) => match base {
                Some(b) => format!("{b}Id"),
                None => "id".to_string(),
            },
            _ if slug && next_is_slug_param && !prev_is_param => "owner".to_string(),
            _ => base.unwrap_or_else(|| "name".to_string()),
        };
        let mut unique = name.clone();
        let mut n = 2;
        while used.contains(&unique) {
            unique = format!("{name}{n}");
            n += 1;
        }
        used.push(unique.clone());
        names.push(unique);
    }
    names
}

/// Segments that name no resource: API prefixes and versions.
fn is_noise(text: &str) -> bool {
    super::is_version_like(text)
        || matches!(
            text,
            "api" | "rest" | "public" | "private" | "internal" | "latest"
        )
}

/// The English singular of a plural that names a resource in a path or a
/// field: `orders` → `order`, `categories` → `category`, `people` →
/// `person`, `flag-statuses` → `flag-status`. In a compound (`line-items`,
/// `line_items`, `lineItems`) only the last word changes. Words that are
/// their own singular (`status`, `news`, `settings`) stay as they are.
///
/// ```
/// use ar_store::template::singular;
/// assert_eq!(singular("flag-statuses"), "flag-status");
/// assert_eq!(singular("lineItems"), "lineItem");
/// assert_eq!(singular("Categories"), "Category");
/// ```
pub fn singular(word: &str) -> String {
    // The last word of a compound: after the last `-`/`_`, or from the
    // last uppercase letter of a camelCase word.
    let split = word
        .rfind(['-', '_'])
        .map(|i| i + 1)
        .or_else(|| {
            let upper = word.rfind(|c: char| c.is_ascii_uppercase())?;
            word[..upper]
                .bytes()
                .any(|b| b.is_ascii_lowercase())
                .then_some(upper)
        })
        .unwrap_or(0);
    let (head, last) = word.split_at(split);
    format!("{head}{}", singular_word(last))
}

/// Words that are their own singular, and singulars ending in `-us` whose
/// plural is `-uses` (`statuses`), which the rules below would cut wrong.
const SAME: &[&str] = &[
    "news",
    "status",
    "series",
    "species",
    "data",
    "analytics",
    "settings",
    "access",
    "address",
    "business",
    "class",
    "process",
    "canvas",
    "alias",
    "bus",
    "campus",
    "virus",
    "corpus",
    "bonus",
    "census",
    "focus",
    "radius",
    "analysis",
];

const IRREGULAR: [(&str, &str); 7] = [
    ("people", "person"),
    ("children", "child"),
    ("men", "man"),
    ("women", "woman"),
    ("indices", "index"),
    ("matrices", "matrix"),
    ("criteria", "criterion"),
];

fn singular_word(word: &str) -> String {
    let lower = word.to_ascii_lowercase();
    if SAME.contains(&lower.as_str()) || lower.len() < 3 {
        return word.to_string();
    }
    if let Some((_, one)) = IRREGULAR.iter().find(|(plural, _)| *plural == lower) {
        return keep_prefix_case(word, one);
    }
    let cut = |n: usize, add: &str| format!("{}{add}", &word[..word.len() - n]);
    if lower
        .strip_suffix("es")
        .is_some_and(|one| SAME.contains(&one))
    {
        return cut(2, "");
    }
    // Greek nouns in `-sis` make their plural in `-ses`; of the words
    // ending so, every one in `-yses` or `-theses` is one of them
    // (`analyses`, `hypotheses`), where `-ases` and `-ises` are mostly not
    // (`databases`, `premises`).
    if lower.ends_with("yses") || lower.ends_with("theses") {
        return cut(2, "is");
    }
    if lower.ends_with("ies") && word.len() > 4 {
        return cut(3, "y");
    }
    if ["sses", "shes", "ches", "xes", "zzes"]
        .iter()
        .any(|s| lower.ends_with(s))
    {
        return cut(2, "");
    }
    if lower.ends_with('s') && !["ss", "us", "is"].iter().any(|s| lower.ends_with(s)) {
        return cut(1, "");
    }
    word.to_string()
}

fn keep_prefix_case(original: &str, replacement: &str) -> String {
    if original.chars().next().is_some_and(char::is_uppercase) {
        let mut chars = replacement.chars();
        chars
            .next()
            .map(|c| c.to_uppercase().chain(chars).collect())
            .unwrap_or_default()
    } else {
        replacement.to_string()
    }
}

/// `line-items` / `line_items` / `LineItems` → `lineItems`; drops characters
/// that cannot appear in an identifier.
pub(crate) fn camel(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut upper_next = false;
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            if out.is_empty() {
                if c.is_ascii_digit() {
                    out.push('p');
                }
                out.push(c.to_ascii_lowercase());
            } else if upper_next {
                out.push(c.to_ascii_uppercase());
            } else {
                out.push(c);
            }
            upper_next = false;
        } else {
            upper_next = !out.is_empty();
        }
    }
    if out.is_empty() {
        "param".to_string()
    } else {
        out
    }
}

/// Field names that hold an identifier (`id`, `_id`, `uuid`, `order_id`,
/// `orderId`): their values name one resource, where a `name` or `key`
/// may name an attribute or a setting.
pub(crate) fn is_id_field(key: &str) -> bool {
    // Case-insensitive tests on bytes: no lowercased copy per JSON field.
    let k = key.as_bytes();
    let ends_with_ci = |suffix: &[u8]| {
        k.len() >= suffix.len() && k[k.len() - suffix.len()..].eq_ignore_ascii_case(suffix)
    };
    k.eq_ignore_ascii_case(b"id")
        || k.eq_ignore_ascii_case(b"_id")
        || k.eq_ignore_ascii_case(b"uuid")
        || ends_with_ci(b"_id")
        || key.ends_with("Id")
        || key.ends_with("ID")
}

/// Fields whose value identifies a record by definition: the id fields
/// ([`is_id_field`]), and slugs, logins, handles, usernames and SKUs. (A
/// `name`, `key` or `code` may be an identifier too, or a label.)
pub(crate) fn is_identifier_field(key: &str) -> bool {
    is_id_field(key)
        || ["slug", "login", "handle", "username", "sku"]
            .iter()
            .any(|name| key.eq_ignore_ascii_case(name))
}

/// Field names that say nothing without their parent (`id`, `name`, `slug`).
pub(crate) fn is_generic_field(field: &str) -> bool {
    ["id", "_id", "uuid", "name", "slug", "key", "code", "handle"]
        .iter()
        .any(|generic| field.eq_ignore_ascii_case(generic))
}

/// A name for a value found at a body field: `$.orders[].id` → `orderId`,
/// `$.user.login` → `login`, `$.repos[].name` → `repoName`.
pub(crate) fn name_from_field(parent: Option<&str>, field: &str) -> String {
    let generic = is_generic_field(field);
    match parent {
        Some(parent) if generic => {
            let base = camel(&singular(parent));
            let field = camel(field.trim_start_matches('_'));
            let mut chars = field.chars();
            let head: String = chars
                .next()
                .map(|c| c.to_uppercase().collect())
                .unwrap_or_default();
            format!("{base}{head}{}", chars.as_str())
        }
        _ if field.eq_ignore_ascii_case("_id") => "id".to_string(),
        _ => camel(field),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn singularises_collections() {
        for (plural, one) in [
            ("users", "user"),
            ("categories", "category"),
            ("boxes", "box"),
            ("repos", "repo"),
            ("people", "person"),
            ("status", "status"),
            ("addresses", "address"),
            ("me", "me"),
            ("news", "news"),
            ("statuses", "status"),
            ("flag-statuses", "flag-status"),
            ("line_items", "line_item"),
            ("paymentMethods", "paymentMethod"),
            ("indices", "index"),
            ("buses", "bus"),
            ("classes", "class"),
            ("analysis", "analysis"),
            ("analyses", "analysis"),
            ("hypotheses", "hypothesis"),
            ("crawlAnalyses", "crawlAnalysis"),
            ("databases", "database"),
            ("settings", "settings"),
        ] {
            assert_eq!(singular(plural), one);
        }
        assert_eq!(camel("line-items"), "lineItems");
        assert_eq!(camel("2fa"), "p2fa");
    }

    #[test]
    fn names_follow_context_and_stay_unique() {
        let int = || NameInput::Param {
            kind: Some(SegmentKind::Integer),
            hint: None,
        };
        let slug = || NameInput::Param {
            kind: None,
            hint: None,
        };
        let segs = [
            NameInput::Literal("users"),
            int(),
            NameInput::Literal("orders"),
            int(),
        ];
        assert_eq!(name_params(&segs), ["userId", "orderId"]);
        let segs = [
            NameInput::Literal("repos"),
            slug(),
            slug(),
            NameInput::Literal("issues"),
        ];
        assert_eq!(name_params(&segs), ["owner", "repo"]);
        let segs = [
            NameInput::Literal("orders"),
            NameInput::Param {
                kind: None,
                hint: Some("orderId"),
            },
        ];
        assert_eq!(name_params(&segs), ["orderId"]);
        let segs = [int(), int()];
        assert_eq!(name_params(&segs), ["id", "id2"]);
        assert_eq!(name_from_field(Some("orders"), "id"), "orderId");
        assert_eq!(name_from_field(Some("user"), "login"), "login");
        assert_eq!(name_from_field(Some("repos"), "name"), "repoName");
    }
}
