//! Names derived from paths when no enrichment is given: operationIds
//! (`listUserOrders`, `getUser`), tags (`users`), and component schema names
//! (`User`, `Order`). Deterministic and readable; uniqueness is the caller's job.

use ar_store::template::{is_method_verb, singular};

/// One segment of a path template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Segment<'a> {
    /// A literal segment (`users`).
    Literal(&'a str),
    /// A parameter (`{userId}` → `userId`).
    Param(&'a str),
}

/// Splits `/users/{userId}/orders` into segments (empty segments dropped).
/// A name before a parameter in one segment (`blacklist.{format}`,
/// `translations={translation}`) is what the segment names: its literal.
pub(crate) fn segments(template: &str) -> Vec<Segment<'_>> {
    template
        .split('/')
        .filter(|segment| !segment.is_empty())
        .map(|segment| match param_parts(segment) {
            Some((name, _)) => Segment::Param(name),
            None => match segment.split_once('{') {
                Some((name, _)) => Segment::Literal(name.trim_end_matches(['.', '=', ':'])),
                None => Segment::Literal(segment),
            },
        })
        .collect()
}

/// Every parameter a template names, in order, also where one segment holds
/// several (`/stops/{latitude},{longitude}` → `latitude`, `longitude`).
pub(crate) fn path_params(template: &str) -> Vec<&str> {
    let mut names = Vec::new();
    let mut rest = template;
    while let Some((_, after)) = rest.split_once('{') {
        let Some((name, tail)) = after.split_once('}') else {
            break;
        };
        names.push(name);
        rest = tail;
    }
    names
}

/// The name and format suffix of a parameter segment: `{topicId}.json` →
/// (`topicId`, `.json`), `{userId}` → (`userId`, ``); `None` for a literal.
pub(crate) fn param_parts(segment: &str) -> Option<(&str, &str)> {
    segment.strip_prefix('{')?.split_once('}')
}

/// Whether a literal is a routing prefix that says nothing about the resource
/// (`api`, `v1`, `rest`, `2024-01-01`...).
pub(crate) fn is_prefix(literal: &str) -> bool {
    let lower = literal.to_ascii_lowercase();
    if matches!(
        lower.as_str(),
        "api" | "apis" | "rest" | "public" | "json" | "svc" | "service" | "services"
    ) {
        return true;
    }
    let version = lower.strip_prefix('v').unwrap_or(&lower);
    (lower.starts_with('v')
        && !version.is_empty()
        && version.chars().all(|c| c.is_ascii_digit() || c == '.'))
        || lower
            .chars()
            .all(|c| c.is_ascii_digit() || c == '-' || c == '.')
}

/// The literal words of a path that name resources, without routing prefixes.
fn resource_literals<'a>(segments: &[Segment<'a>]) -> Vec<(usize, &'a str)> {
    let first_resource = segments
        .iter()
        .position(|segment| matches!(segment, Segment::Literal(l) if !is_prefix(l)))
        .unwrap_or(segments.len());
    segments
        .iter()
        .enumerate()
        .skip(first_resource)
        .filter_map(|(index, segment)| match segment {
            Segment::Literal(literal) => Some((index, *literal)),
            Segment::Param(_) => None,
        })
        .collect()
}

/// The tag of an operation: its first resource word (`/api/v1/users/{id}` → `users`).
pub(crate) fn tag(template: &str) -> String {
    let segments = segments(template);
    resource_literals(&segments)
        .first()
        .map(|(_, literal)| words(literal).join("-"))
        .filter(|tag| !tag.is_empty())
        .unwrap_or_else(|| "root".to_string())
}

/// An operationId from the method and path template.
///
/// `GET /users` → `listUsers`, `GET /users/{userId}` → `getUser`,
/// `POST /users` → `createUser`, `GET /users/{userId}/orders` → `listUserOrders`.
pub(crate) fn operation_id(method: &str, template: &str) -> String {
    if let Some((on, verb)) = custom_method(template) {
        // The verb names the operation, whatever the method:
        // `startProjectInstance`, `batchGetProjectInstances`.
        let segments = segments(on);
        let literals = resource_literals(&segments);
        let on_collection = !matches!(segments.last(), Some(Segment::Param(_)));
        return format!(
            "{verb}{}",
            pascal_words(&literals, &segments, on_collection)
        );
    }
    let segments = segments(template);
    let literals = resource_literals(&segments);
    let ends_with_param = matches!(segments.last(), Some(Segment::Param(_)));
    let method = method.to_ascii_uppercase();
    let collection = !ends_with_param;
    let verb = match (method.as_str(), collection) {
        ("GET", true) if literals.last().is_some_and(|(_, l)| is_plural(l)) => "list",
        ("GET", _) => "get",
        ("POST", true) => "create",
        ("POST", false) => "post",
        ("PUT", _) => "replace",
        ("PATCH", _) => "update",
        ("DELETE", _) => "delete",
        ("HEAD", _) => "head",
        ("OPTIONS", _) => "options",
        (other, _) => {
            return format!(
                "{}{}",
                other.to_ascii_lowercase(),
                pascal_words(&literals, &segments, true)
            );
        }
    };
    let keep_plural = verb == "list";
    let mut id = verb.to_string();
    id.push_str(&pascal_words(&literals, &segments, keep_plural));
    if literals.is_empty() {
        id.push_str("Root");
    }
    id
}

/// A custom method ending the template (`/instances/{instance}:start`,
/// `/instances:batchGet`, as Google's AIP-136 writes them): the template
/// without it, and the verb.
fn custom_method(template: &str) -> Option<(&str, &str)> {
    let colon = template
        .rfind(':')
        .filter(|c| !template[*c..].contains('/'))?;
    let (on, verb) = (&template[..colon], &template[colon + 1..]);
    (is_method_verb(verb) && !on.ends_with('/')).then_some((on, verb))
}

/// PascalCase of the resource words; a word followed by a parameter (an item
/// of a collection) and the word being created/fetched are singular.
fn pascal_words(
    literals: &[(usize, &str)],
    segments: &[Segment<'_>],
    keep_last_plural: bool,
) -> String {
    let mut out = String::new();
    for (position, (index, literal)) in literals.iter().enumerate() {
        let is_last = position + 1 == literals.len();
        let followed_by_param = matches!(segments.get(index + 1), Some(Segment::Param(_)));
        let singular_form = followed_by_param || (is_last && !keep_last_plural);
        for (word_index, word) in words(literal).iter().enumerate() {
            let last_word = word_index + 1 == words(literal).len();
            let word = if singular_form && last_word {
                singular(word)
            } else {
                word.clone()
            };
            out.push_str(&capitalise(&word));
        }
    }
    out
}

/// A component schema name from a resource word (`orders` → `Order`).
pub(crate) fn schema_name(word: &str) -> String {
    let parts = words(word);
    let count = parts.len();
    parts
        .iter()
        .enumerate()
        .map(|(index, part)| {
            capitalise(&if index + 1 == count {
                singular(part)
            } else {
                part.clone()
            })
        })
        .collect()
}

/// The resource noun of a path (`/api/users/{id}/orders` → `orders`), for schema names.
pub(crate) fn resource_noun(template: &str) -> Option<String> {
    let segments = segments(template);
    resource_literals(&segments)
        .last()
        .map(|(_, literal)| (*literal).to_string())
}

/// Lowercase words of a name: `X-API-Key` → `x api key`, `userId` → `user id`.
pub(crate) fn words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut previous_lower = false;
    for c in name.chars() {
        if !c.is_ascii_alphanumeric() {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            previous_lower = false;
            continue;
        }
        if c.is_ascii_uppercase() && previous_lower && !current.is_empty() {
            words.push(std::mem::take(&mut current));
        }
        previous_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        current.push(c.to_ascii_lowercase());
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

/// camelCase of any name (`X-API-Key` → `xApiKey`, `connect.sid` → `connectSid`).
pub(crate) fn camel(name: &str) -> String {
    let mut out = String::new();
    for (index, word) in words(name).iter().enumerate() {
        if index == 0 {
            out.push_str(word);
        } else {
            out.push_str(&capitalise(word));
        }
    }
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'x');
    }
    out
}

fn capitalise(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first.to_ascii_uppercase().to_string() + chars.as_str(),
        None => String::new(),
    }
}

fn is_plural(word: &str) -> bool {
    words(word)
        .last()
        .is_some_and(|last| singular(last) != *last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operation_ids_read_like_sentences() {
        assert_eq!(operation_id("GET", "/users"), "listUsers");
        assert_eq!(operation_id("GET", "/users/{userId}"), "getUser");
        assert_eq!(operation_id("POST", "/api/v2/users"), "createUser");
        assert_eq!(
            operation_id("GET", "/users/{userId}/orders"),
            "listUserOrders"
        );
        assert_eq!(
            operation_id("DELETE", "/users/{userId}/orders/{orderId}"),
            "deleteUserOrder"
        );
        assert_eq!(
            operation_id("PATCH", "/cart/items/{itemId}"),
            "updateCartItem"
        );
        assert_eq!(operation_id("GET", "/users/me"), "getUsersMe");
        assert_eq!(operation_id("GET", "/"), "getRoot");
        assert_eq!(operation_id("GET", "/search.json"), "getSearchJson");
        // A name before a value in one segment is what the segment names.
        assert_eq!(
            operation_id("GET", "/categories.{format}"),
            "listCategories"
        );
        assert_eq!(
            operation_id("GET", "/words/{wordId}/translations={translations}"),
            "listWordTranslations"
        );
        assert_eq!(
            operation_id("GET", "/repos/{owner}/{repo}/issues"),
            "listRepoIssues"
        );
    }

    #[test]
    fn custom_methods_name_their_operation() {
        assert_eq!(
            operation_id("POST", "/v1/projects/{project}/instances/{instance}:start"),
            "startProjectInstance"
        );
        assert_eq!(
            operation_id("POST", "/v1/projects/{project}/instances:batchGet"),
            "batchGetProjectInstances"
        );
        // Not a verb: a port, a time, a colon inside a value.
        assert_eq!(operation_id("GET", "/hosts/{host}:8080"), "getHost");
        assert_eq!(custom_method("/at/12:30"), None);
        assert_eq!(custom_method("/a:b/{c}"), None);
    }

    #[test]
    fn tags_skip_routing_prefixes() {
        assert_eq!(tag("/api/v1/users/{id}"), "users");
        assert_eq!(tag("/v2/line-items"), "line-items");
        assert_eq!(tag("/"), "root");
        assert_eq!(tag("/2024-01-01/charges"), "charges");
    }

    #[test]
    fn singulars_and_names() {
        for (plural, single) in [
            ("categories", "category"),
            ("addresses", "address"),
            ("boxes", "box"),
            ("users", "user"),
            ("status", "status"),
            ("people", "person"),
            ("me", "me"),
        ] {
            assert_eq!(singular(plural), single, "{plural}");
        }
        assert_eq!(schema_name("line_items"), "LineItem");
        assert_eq!(camel("X-API-Key"), "xApiKey");
        assert_eq!(camel("connect.sid"), "connectSid");
        assert_eq!(words("userId"), ["user", "id"]);
    }
}
