//! GraphQL documents as requests carry them: which operation a document
//! starts with, its kind and name. The store keys a GraphQL endpoint by
//! it; the documenter names each operation with it.

use serde::{Deserialize, Serialize};

/// The kind of a GraphQL operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OperationKind {
    /// `query` (also the `{ ... }` shorthand).
    Query,
    /// `mutation`.
    Mutation,
    /// `subscription`.
    Subscription,
    /// Not stated (persisted query by hash or name only).
    Unknown,
}

impl OperationKind {
    /// The GraphQL keyword (`unknown` when not stated).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Query => "query",
            Self::Mutation => "mutation",
            Self::Subscription => "subscription",
            Self::Unknown => "unknown",
        }
    }
}

/// Whether `doc` reads as a GraphQL document: an operation, the `{ ... }`
/// shorthand or a fragment first, after what the grammar ignores.
pub fn looks_like_document(doc: &str) -> bool {
    let t = skip_ignored(doc);
    t.starts_with('{')
        || t.starts_with("query")
        || t.starts_with("mutation")
        || t.starts_with("subscription")
        || t.starts_with("fragment")
}

/// Skips whitespace, commas and `#` comments.
fn skip_ignored(mut text: &str) -> &str {
    loop {
        text = text.trim_start_matches(|c: char| c.is_whitespace() || c == ',' || c == '\u{feff}');
        if let Some(rest) = text.strip_prefix('#') {
            text = rest.split_once('\n').map(|(_, r)| r).unwrap_or("");
        } else {
            return text;
        }
    }
}

/// The kind and name of the first operation in a document; fragments
/// before it are skipped. `Unknown` when the document starts with
/// something else or a fragment never closes.
///
/// ```
/// use ar_flow::graphql::{OperationKind, document_head};
///
/// let doc = "fragment F on User { id } mutation AddToCart($id: ID!) { addToCart(id: $id) { id } }";
/// assert_eq!(document_head(doc), (OperationKind::Mutation, Some("AddToCart".into())));
/// assert_eq!(document_head("{ me { id } }"), (OperationKind::Query, None));
/// ```
pub fn document_head(doc: &str) -> (OperationKind, Option<String>) {
    let mut text = skip_ignored(doc);
    loop {
        if text.starts_with('{') {
            return (OperationKind::Query, None);
        }
        let word: String = text
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let kind = match word.as_str() {
            "query" => OperationKind::Query,
            "mutation" => OperationKind::Mutation,
            "subscription" => OperationKind::Subscription,
            "fragment" => {
                // Skip the fragment's selection set, counting braces.
                let Some(open) = text.find('{') else {
                    return (OperationKind::Unknown, None);
                };
                let mut depth = 0usize;
                let mut end = None;
                for (i, c) in text[open..].char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                end = Some(open + i + 1);
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                let Some(end) = end else {
                    return (OperationKind::Unknown, None);
                };
                text = skip_ignored(&text[end..]);
                continue;
            }
            _ => return (OperationKind::Unknown, None),
        };
        let rest = skip_ignored(&text[word.len()..]);
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        return (kind, (!name.is_empty()).then_some(name));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_the_grammar_ignores_is_skipped_and_a_longer_word_is_no_keyword() {
        let doc = "\u{feff}# cached\n,, query  Feed($n: Int) { feed(n: $n) { id } }";
        assert!(looks_like_document(doc));
        assert_eq!(
            document_head(doc),
            (OperationKind::Query, Some("Feed".into()))
        );
        assert_eq!(
            document_head("queryFeed { id }"),
            (OperationKind::Unknown, None)
        );
        assert_eq!(
            document_head("fragment F on User { id "),
            (OperationKind::Unknown, None),
            "a fragment that never closes"
        );
        assert!(!looks_like_document("SELECT 1"));
    }
}
