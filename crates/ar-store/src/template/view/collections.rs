//! Which alike literals are names of collections rather than values.
//!
//! The alike and cardinality rules of [`super`] find literals that look
//! alike; this module decides which of them are nevertheless names (REST
//! collections such as `users`, `orders`) and records why, so that
//! `/v1/users/{userId}` and `/v1/orders/{orderId}` stay two endpoints while
//! `/categories/{category}/items` folds.

use std::collections::{BTreeMap, BTreeSet};

use super::super::format_suffix;
use super::super::trie::{RawNode, kind_bit, kinds_of};
use super::super::{KeptReason, SegmentKind, classify_segment};

/// Alike plural words without their own ids that stay literal below this many.
const MANY_COLLECTIONS: usize = 8;
/// Alike singular words with their own ids and responses of their own that
/// stay literal below this many (`/api/user/{id}`, `/api/order/{id}`).
const MANY_SINGULAR_COLLECTIONS: usize = 24;
/// Response shapes gathered per literal when comparing singular words.
const SHAPES_COMPARED: usize = 64;
/// Literals of one alike group seen in bodies that make the whole group values.
const MANY_ORIGINS: usize = 3;

/// How [`Sort::group`] treats the literals of one group.
pub(super) struct Sort {
    /// Literals needed to fold once collection names left the group.
    pub(super) min_rest: usize,
    /// Whether the group is of leaves, alike only by response shape. With no
    /// children to tell names from values, plural words among them stay
    /// literal however many there are (`/v1/users`, `/v1/orders` lists that
    /// share one envelope); they fold by provenance, overflow, or once their
    /// subtrees show alike literal children.
    pub(super) leaves: bool,
    /// Whether the group sits in a namespace (the root, or below a word that
    /// names no collection: `/mlflow/runs/search`, `/mlflow/experiments/search`).
    /// Collection words there are names of resources however many there are;
    /// only provenance or overflow makes them values.
    pub(super) namespace: bool,
}

impl Sort {
    /// Splits a group of alike literals into those that stay literal
    /// (recorded in `kept` with why) and those that fold, returned.
    ///
    /// Names of resources are not values of one parameter, however many look
    /// alike: a plural word directly followed by its own identifier parameter
    /// (`/users/{userId}`) is a REST collection and stays literal. A singular
    /// word followed by its own ids (`/user/{userId}`) is one too when its
    /// responses share no shape with any alike sibling's: `user` and `order`
    /// answer differently, while `acme` and `globex` (values of one slug)
    /// answer alike; and only while fewer than [`MANY_SINGULAR_COLLECTIONS`]
    /// of them are alike. Without responses to compare they fold. Provenance
    /// wins over that: each literal seen in a body folds on its own, and once
    /// [`MANY_ORIGINS`] of the group were, the whole group is values
    /// (`/departments/{slug}/...` after `$.departments[].slug`). A count, not
    /// a share, so that more traffic never takes the fold back. Other plural
    /// words stay literal while fewer than [`MANY_COLLECTIONS`] of them are
    /// alike; from then on, plural words with literal or slug children are
    /// values (`/categories/{category}/items`), and plural leaves never are.
    pub(super) fn group<'a>(
        &self,
        group: Vec<&'a str>,
        lits: &BTreeMap<&'a str, Vec<&'a RawNode>>,
        kept: &mut BTreeMap<&'a str, KeptReason>,
    ) -> Vec<&'a str> {
        let seen_in_bodies = group
            .iter()
            .filter(|k| lits[*k].iter().any(|r| r.origin.is_some()))
            .count();
        if seen_in_bodies >= MANY_ORIGINS {
            return group;
        }
        let before = group.len();
        let mut collections = Vec::new();
        let mut singular = Vec::new();
        let mut rest = Vec::new();
        for k in group {
            match is_name_word(k).then(|| own_ids(&lits[k])).flatten() {
                Some(ids) if is_collection_word(k) => collections.push((k, ids)),
                Some(ids) => singular.push((k, ids)),
                None => rest.push(k),
            }
        }
        if !singular.is_empty() {
            let shapes: BTreeMap<&str, BTreeSet<u64>> = (collections.iter().chain(&singular))
                .map(|(k, _)| *k)
                .chain(rest.iter().copied())
                .map(|k| (k, subtree_shapes(&lits[k])))
                .collect();
            let answers_alone = |k: &str| {
                shapes.get(k).is_some_and(|own| {
                    !own.is_empty()
                        && (shapes.iter())
                            .all(|(other, theirs)| *other == k || own.is_disjoint(theirs))
                })
            };
            let (own, alike): (Vec<_>, Vec<_>) =
                singular.into_iter().partition(|(k, _)| answers_alone(k));
            rest.extend(alike.into_iter().map(|(k, _)| k));
            if own.len() < MANY_SINGULAR_COLLECTIONS {
                collections.extend(own);
            } else {
                rest.extend(own.into_iter().map(|(k, _)| k));
            }
        }
        let siblings = collections.len();
        for (k, (id_kinds, ids)) in collections {
            kept.insert(
                k,
                KeptReason::Collection {
                    id_kinds,
                    ids,
                    siblings,
                },
            );
        }
        // Collection names come in kinds: a group reads as names of lists
        // when most of it is plural (`/v1/users`, `/v1/orders`). One word
        // ending in `s` among singular values (`atlas` beside `beta`,
        // `delta`) is a value that happens to end so.
        let plural = rest.iter().filter(|k| is_collection_word(k)).count();
        let (names, rest): (Vec<&'a str>, Vec<&'a str>) = if plural * 2 < rest.len() {
            (Vec::new(), rest)
        } else {
            rest.into_iter().partition(|k| {
                (self.leaves && is_plural_word(k)) || (self.namespace && is_collection_word(k))
            })
        };
        for k in names {
            kept.insert(k, KeptReason::CollectionNames);
        }
        // A few words, three in four of them plural, are names of lists
        // (`airlines`, `airports`, `cities` and `aircraft`, whose plural
        // ends in no `s`), however alike their items answer.
        // Lists are followed by their items; words that all lead to one
        // sub-collection (`/services/forms/instances/{id}`, `/services/
        // analytics/instances/{id}`) are items themselves, plural or not.
        let plural = rest.iter().filter(|k| is_plural_word(k)).count();
        if rest.len() < MANY_COLLECTIONS
            && plural * 4 >= rest.len() * 3
            && !lead_to_one_sub_collection(&rest, lits)
        {
            for k in rest {
                kept.insert(k, KeptReason::CollectionNames);
            }
            return Vec::new();
        }
        // Literals that were alike only to collection names lost their
        // evidence; they are left to the rules after this one (a leaf that
        // answers as the values beside it do joins them).
        if rest.len() < before && rest.len() < self.min_rest {
            for k in rest.into_iter().filter(|k| is_plural_word(k)) {
                kept.insert(k, KeptReason::CollectionNames);
            }
            return Vec::new();
        }
        rest
    }
}

/// The identifier kinds of the parameter directly below a literal, and how
/// many distinct values it had; `None` when no identifier follows it.
pub(super) fn own_ids(raws: &[&RawNode]) -> Option<(Vec<SegmentKind>, usize)> {
    let params: Vec<&RawNode> = raws.iter().filter_map(|r| r.param.as_deref()).collect();
    let weak = raws
        .iter()
        .flat_map(|r| &r.literals)
        .filter_map(|(text, child)| Some((&**text, child.value_kind?)));
    let bits = params.iter().fold(0u16, |acc, p| acc | p.kinds)
        | weak
            .clone()
            .fold(0u16, |acc, (_, kind)| acc | kind_bit(kind));
    let id_kinds: Vec<SegmentKind> = kinds_of(bits)
        .into_iter()
        .filter(|k| k.is_id_like())
        .collect();
    if id_kinds.is_empty() {
        return None;
    }
    let distinct: BTreeSet<&str> = params
        .iter()
        .flat_map(|p| p.values.iter().map(|v| &**v))
        .chain(weak.map(|(text, _)| text))
        .collect();
    Some((id_kinds, distinct.len()))
}

/// Ids directly below a literal that are spelled so that they cannot recur
/// by chance: numbers of [`DISTINCTIVE_DIGITS`] digits or more, UUIDs,
/// hashes, prefixed ids and long tokens. The same such id under two sibling
/// words is one id, not two that happen to be spelled alike; short numbers
/// and words (`1`, `orion`) recur under unrelated collections.
pub(super) fn distinctive_ids<'a>(raws: &[&'a RawNode]) -> BTreeSet<&'a str> {
    let params = (raws.iter().filter_map(|r| r.param.as_deref()))
        .flat_map(|p| p.values.iter().map(|v| &**v));
    let weak = (raws.iter().flat_map(|r| &r.literals))
        .filter(|(_, child)| child.value_kind.is_some())
        .map(|(text, _)| &**text);
    params
        .chain(weak)
        .filter(|v| match classify_segment(v) {
            Some(SegmentKind::Integer) => v.len() >= DISTINCTIVE_DIGITS,
            Some(kind) => matches!(
                kind,
                SegmentKind::Uuid
                    | SegmentKind::Hex
                    | SegmentKind::PrefixedId
                    | SegmentKind::Sid
                    | SegmentKind::OpaqueToken
            ),
            None => false,
        })
        .collect()
}

/// Digits from which a number in a path is an id that does not recur by
/// chance under another word ([`distinctive_ids`]): five, a hundred
/// thousand values.
const DISTINCTIVE_DIGITS: usize = 5;

/// Whether two or more words each lead to one and the same word below, and
/// only there, with more path after it (`instances` after `forms` and
/// `analytics`): a sub-collection of items, where a list leads to its items.
fn lead_to_one_sub_collection(words: &[&str], lits: &BTreeMap<&str, Vec<&RawNode>>) -> bool {
    let only_child = |k: &str| -> Option<&str> {
        let raws = lits.get(k)?;
        if raws.iter().any(|r| r.param.is_some()) {
            return None;
        }
        let mut children = (raws.iter().flat_map(|r| r.literals.iter()))
            .filter(|(text, _)| format_suffix(text).is_none());
        let (first, child) = children.next()?;
        let more_path = !child.is_leaf();
        children
            .all(|(text, child)| text == first && !child.is_leaf())
            .then_some(&**first)
            .filter(|_| more_path)
    };
    let mut children = words.iter().map(|k| only_child(k));
    let Some(Some(first)) = children.next() else {
        return false;
    };
    words.len() >= 2 && children.all(|child| child == Some(first))
}

/// Response shapes of flows that ended anywhere below a literal (at most
/// [`SHAPES_COMPARED`]): what its resources look like.
fn subtree_shapes(raws: &[&RawNode]) -> BTreeSet<u64> {
    let mut shapes = BTreeSet::new();
    for shape in super::all_answers(raws) {
        if shapes.len() == SHAPES_COMPARED {
            break;
        }
        shapes.insert(shape.fingerprint());
    }
    shapes
}

/// Distinct path words needed before an API's spelling of its names counts.
const SPELLING_MIN_WORDS: usize = 8;

/// Whether the API spells the names in its paths capitalised (`/Employer`,
/// `/HolidayScheme`, `/Revision`): three in four of its distinct path words
/// (letters only) begin with a capital. An API spells its names one way, so
/// there words in lowercase where names would be (`/Revision/beta/Summary`,
/// `/Revision/orion/Summary`) are data, not more names; such words, several
/// side by side with no capitalised word among them, are not counted, or
/// the more data a capture holds the less its names would count.
pub(super) fn names_capitalised(root: &RawNode) -> bool {
    let is_word = |w: &str| w.len() >= 3 && w.bytes().all(|b| b.is_ascii_alphabetic());
    let mut words: BTreeSet<&str> = BTreeSet::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        let siblings: Vec<&str> = (node.literals.iter())
            .map(|(word, _)| &**word)
            .filter(|w| is_word(w))
            .collect();
        let all_data = siblings.len() >= 2 && siblings.iter().all(|w| is_lowercase_word(w));
        if !all_data {
            words.extend(siblings);
        }
        stack.extend(node.literals.iter().map(|(_, child)| child));
        stack.extend(node.param.as_deref());
    }
    let capital = words
        .iter()
        .filter(|w| w.as_bytes()[0].is_ascii_uppercase())
        .count();
    words.len() >= SPELLING_MIN_WORDS && capital * 4 >= words.len() * 3
}

/// A word in lowercase letters only (`beta`, `orion`): in an API that
/// capitalises its names, not one of them.
pub(super) fn is_lowercase_word(word: &str) -> bool {
    !word.is_empty() && word.bytes().all(|b| b.is_ascii_lowercase())
}

/// A collection name when an identifier follows it: a plural [`is_name_word`]
/// (`users`, `payment-methods`, `lineItems`).
///
/// Broader than [`is_plural_word`] because the id after it is the evidence;
/// alone, `red-shoes` is as likely a slug.
pub(super) fn is_collection_word(word: &str) -> bool {
    is_name_word(word) && word.ends_with('s') && !word.ends_with("ss")
}

/// A word that can name a resource: lowercase first, letters only, also
/// `kebab-case`, `snake_case` or `lowerCamel` (`user`, `payment-method`).
pub(super) fn is_name_word(word: &str) -> bool {
    let b = word.as_bytes();
    let separator = |c: &u8| *c == b'-' || *c == b'_';
    b.len() >= 3
        && b[0].is_ascii_lowercase()
        && b.iter().all(|c| c.is_ascii_alphabetic() || separator(c))
        && !b.windows(2).any(|w| separator(&w[0]) && separator(&w[1]))
}

/// A word that ends in the preposition `by`, alone or as the last word of a
/// compound (`by`, `count-by`, `group_by`, `sortBy`; not `lobby`): it asks
/// for its object, what to count, group, sort or look up by, so a leaf
/// after it is that key, a value, not a name of its own.
pub(super) fn ends_in_by(word: &str) -> bool {
    if word == "by" {
        return true;
    }
    match word.strip_suffix("by") {
        Some(head) => head.len() >= 2 && head.ends_with(['-', '_']),
        None => word
            .strip_suffix("By")
            .is_some_and(|head| head.ends_with(|c: char| c.is_ascii_lowercase())),
    }
}

/// Lowercase words ending in a plural `s`: names of collections.
fn is_plural_word(word: &str) -> bool {
    word.len() >= 3
        && word.bytes().all(|b| b.is_ascii_lowercase() || b == b'_')
        && word.ends_with('s')
        && !word.ends_with("ss")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_ending_in_the_preposition_by_ask_for_a_key() {
        for word in ["by", "count-by", "group_by", "sortBy", "orderBy"] {
            assert!(ends_in_by(word), "{word}");
        }
        for word in [
            "lobby", "standby", "nearby", "-by", "baby", "By", "followed",
        ] {
            assert!(!ends_in_by(word), "{word}");
        }
    }

    #[test]
    fn collection_words_include_separated_and_camel_plurals() {
        for word in [
            "users",
            "payment-methods",
            "tax_rates",
            "lineItems",
            "api-keys",
        ] {
            assert!(is_collection_word(word), "{word}");
        }
        for word in [
            "address",
            "me",
            "Users",
            "v2s",
            "2fa-codes",
            "a--bs",
            "user",
        ] {
            assert!(!is_collection_word(word), "{word}");
        }
        assert!(!is_plural_word("red-shoes"));
        assert!(is_plural_word("shoes"));
        for word in ["user", "payment-method", "lineItem", "address"] {
            assert!(is_name_word(word), "{word}");
        }
        for word in ["me", "v2", "2fa", "User", "a--b", "en"] {
            assert!(!is_name_word(word), "{word}");
        }
    }
}
