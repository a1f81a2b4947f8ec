//! Segments whose name is fixed and whose ending is a value: `blacklist.xml`
//! and `blacklist.yaml` are `/blacklist.{format}`, `translations=es` is
//! `/translations={translation}`.
//!
//! The rest of the view decides segments whole, so without this such a
//! segment is either one literal per ending (`/blacklist.xml`,
//! `/blacklist.yaml`, ... each an endpoint) or, when the names fold, a value
//! that swallows the name. Two kinds of evidence say where a name ends:
//!
//! - *Shared endings.* Several names at one position each end, after a dot,
//!   in several of the same words (`blacklist.xml`, `categories.xml`,
//!   `blacklist.yaml`, `categories.yaml`), and two endings of each name
//!   answered alike: the ending chose no operation, so it is a value every
//!   name takes (a format, a variant). RPC methods make the same grid
//!   (`users.list`, `users.info`, `groups.list`, `groups.info`), but each
//!   method of a resource answers in its own shape. Ids before such endings
//!   (`/document/2574.xml`) count as one name, and the values of the
//!   parameter they fold into end in one more parameter; a word among them
//!   in the grid (`processed.xml`) is a name beside the ids, however alike
//!   it answered. Without ids, words folded as values stay values
//!   (`alpha.com`, `alpha.org`, `beta.com`, `beta.org` are host names).
//! - *Key and value.* A segment written `key=value` names its value, as a
//!   query string does, also where the values answered alike and folded;
//!   values that are all pairs with keys of their own, folded together
//!   (`color=red`, `size=xl`), stay one parameter of pairs.

use std::collections::{BTreeMap, BTreeSet};

use super::super::answer::any_alike;
use super::super::{AnswerShape, Rule, classify_segment};

/// Distinct endings a name needs before it anchors the grid.
const GRID_ENDINGS: usize = 3;
/// Endings two names of the grid must share.
const SHARED_ENDINGS: usize = 2;

/// What [`endings`] found at one position.
#[derive(Debug, Default)]
pub(super) struct Endings<'r> {
    /// Each fixed beginning (`blacklist.`, `translations=`), with the rule
    /// and the literals that begin with it.
    pub(super) prefixed: BTreeMap<String, (Rule, Vec<&'r str>)>,
    /// Whether the ids folded here end in the shared words after a dot
    /// (`2574.xml`): their segment is `{id}.{format}`.
    pub(super) ids_end: bool,
}

/// How one literal splits into a name and its ending.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Split<'r> {
    /// `stem.ending`; the stem is `None` when it is spelled as an id.
    Dotted(Option<&'r str>, &'r str),
    /// `key=value`.
    Keyed(&'r str),
}

/// A name's characters: letters, digits, `_` and `-`, one letter at least.
fn is_word(text: &str) -> bool {
    !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        && text.bytes().any(|b| b.is_ascii_alphabetic())
}

fn split(literal: &str) -> Option<Split<'_>> {
    if let Some((key, value)) = literal.split_once('=') {
        let keyed = key.as_bytes().first().is_some_and(u8::is_ascii_alphabetic)
            && is_word(key)
            && !value.is_empty()
            && !value.contains('=');
        return keyed.then_some(Split::Keyed(key));
    }
    let (stem, ending) = literal.rsplit_once('.')?;
    if stem.contains('.') || !is_word(ending) || ending.len() > 24 {
        return None;
    }
    match classify_segment(stem) {
        Some(kind) if kind.is_id_like() => Some(Split::Dotted(None, ending)),
        Some(_) => None,
        None => is_word(stem).then_some(Split::Dotted(Some(stem), ending)),
    }
}

/// The literals at one position whose ending is a value: those that begin
/// with a fixed name, and whether the `folded` ids end in the shared words.
/// `answers` gives what a literal's flows answered; a literal taken in
/// `folded` takes part only as the module docs say.
pub(super) fn endings<'r>(
    literals: impl Iterator<Item = &'r str>,
    folded: impl Fn(&str) -> bool,
    answers: impl Fn(&str) -> Vec<AnswerShape>,
) -> Endings<'r> {
    let mut found = Endings::default();
    // Each name's endings after a dot (ids as one name), and the keyed literals.
    let mut by_name: BTreeMap<Option<&str>, BTreeMap<&str, Vec<&str>>> = BTreeMap::new();
    let mut dotted: Vec<(&str, Option<&str>, &str)> = Vec::new();
    let mut keyed: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    let mut plain_values = false;
    for literal in literals {
        match split(literal) {
            Some(Split::Keyed(key)) => keyed.entry(key).or_default().push(literal),
            None if folded(literal) => plain_values = true,
            Some(Split::Dotted(stem, ending)) => {
                let name = by_name.entry(stem).or_default();
                name.entry(ending).or_default().push(literal);
                dotted.push((literal, stem, ending));
            }
            _ => {}
        }
    }
    let folded_keys = (keyed.iter())
        .filter(|(_, literals)| literals.iter().any(|l| folded(l)))
        .count();
    let pairs = folded_keys >= 2 && !plain_values;
    for (key, literals) in keyed {
        if pairs && literals.iter().any(|l| folded(l)) {
            continue;
        }
        let rule = Rule::KeyValue {
            key: key.to_string(),
        };
        found.prefixed.insert(format!("{key}="), (rule, literals));
    }
    // The grid: names with several endings, two of which answered alike,
    // two such names sharing several endings.
    let answered_alike = |endings: &BTreeMap<&str, Vec<&str>>| {
        let answered: Vec<Vec<AnswerShape>> = (endings.values())
            .map(|literals| literals.iter().flat_map(|l| answers(l)).collect())
            .collect();
        (answered.iter().enumerate())
            .any(|(i, a)| answered[i + 1..].iter().any(|b| any_alike(a, b)))
    };
    let anchors: Vec<BTreeSet<&str>> = (by_name.values())
        .filter(|endings| endings.len() >= GRID_ENDINGS && answered_alike(endings))
        .map(|endings| endings.keys().copied().collect())
        .collect();
    let mut shared: BTreeSet<&str> = BTreeSet::new();
    for (i, a) in anchors.iter().enumerate() {
        for b in &anchors[i + 1..] {
            let both: Vec<&str> = a.intersection(b).copied().collect();
            if both.len() >= SHARED_ENDINGS {
                shared.extend(both);
            }
        }
    }
    if shared.is_empty() {
        return found;
    }
    let in_grid = |endings: &BTreeMap<&str, Vec<&str>>| endings.keys().any(|e| shared.contains(e));
    let ids_in_grid = by_name.get(&None).is_some_and(in_grid);
    // A name all of whose literals were folded is one only beside ids.
    let values_only = |endings: &BTreeMap<&str, Vec<&str>>| {
        (endings.values().flatten()).all(|literal| folded(literal))
    };
    let names: BTreeSet<Option<&str>> = (by_name.iter())
        .filter(|(name, endings)| {
            in_grid(endings) && (name.is_none() || ids_in_grid || !values_only(endings))
        })
        .map(|(name, _)| *name)
        .collect();
    for (literal, stem, _) in dotted {
        if !names.contains(&stem) {
            continue;
        }
        match stem {
            None => found.ids_end |= folded(literal),
            Some(stem) => {
                let rule = Rule::SharedEndings {
                    names: names.len(),
                    endings: shared.len(),
                };
                let prefix = format!("{stem}.");
                let entry = found.prefixed.entry(prefix).or_insert((rule, Vec::new()));
                entry.1.push(literal);
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every literal answered in one shape.
    fn alike(_: &str) -> Vec<AnswerShape> {
        vec![AnswerShape::exact(1)]
    }

    fn prefixes(found: &Endings<'_>) -> Vec<(String, usize)> {
        (found.prefixed.iter())
            .map(|(prefix, (_, members))| (prefix.clone(), members.len()))
            .collect()
    }

    #[test]
    fn names_that_share_several_endings_end_in_a_value() {
        let literals = [
            "blacklist.xml",
            "blacklist.yaml",
            "blacklist.csv2",
            "categories.xml",
            "categories.yaml",
            "categories.csv2",
            "status.yaml",
            "readme.md",
        ];
        let found = endings(literals.into_iter(), |_| false, alike);
        // `status` ends in a shared word; `readme.md` in none.
        assert_eq!(
            prefixes(&found),
            [
                ("blacklist.".to_string(), 3),
                ("categories.".to_string(), 3),
                ("status.".to_string(), 1)
            ]
        );
        let (rule, _) = &found.prefixed["blacklist."];
        assert_eq!(
            rule.to_string(),
            "the end of a name after its dot: 3 names here end in 3 of the same words"
        );
    }

    #[test]
    fn endings_one_name_alone_has_are_part_of_it() {
        // Files of one name in several formats, no second name beside them.
        let literals = ["report.pdf", "report.xlsx", "report.odt", "notes.md"];
        assert!(
            endings(literals.into_iter(), |_| false, alike)
                .prefixed
                .is_empty()
        );
        // Host names share endings but their stems are values, folded.
        let hosts = [
            "alpha.com",
            "alpha.org",
            "alpha.net",
            "beta.com",
            "beta.org",
            "beta.net",
        ];
        assert!(
            endings(hosts.into_iter(), |_| true, alike)
                .prefixed
                .is_empty()
        );
    }

    #[test]
    fn rpc_methods_each_answering_its_own_shape_are_names() {
        let literals = [
            "users.list",
            "users.info",
            "users.lookup",
            "groups.list",
            "groups.info",
            "groups.archive",
        ];
        let own = |l: &str| {
            let methods = ["list", "info", "lookup", "archive"];
            let method = methods.iter().position(|m| l.ends_with(m));
            vec![AnswerShape::exact(method.unwrap_or(9) as u64)]
        };
        assert!(
            endings(literals.into_iter(), |_| false, own)
                .prefixed
                .is_empty()
        );
        // The same names where endings answered alike end in a value.
        let found = endings(literals.into_iter(), |_| false, alike);
        assert_eq!(found.prefixed.len(), 2);
    }

    #[test]
    fn ids_before_shared_endings_end_in_a_parameter() {
        let literals = [
            "processed.xml",
            "processed.yaml",
            "processed.csv2",
            "2574.xml",
            "2574.yaml",
            "8841.csv2",
        ];
        let ids = |l: &str| l.starts_with(|c: char| c.is_ascii_digit());
        let found = endings(literals.into_iter(), ids, alike);
        assert_eq!(prefixes(&found), [("processed.".to_string(), 3)]);
        assert!(found.ids_end);
    }

    #[test]
    fn a_key_and_its_value_are_a_name_and_a_value() {
        let literals = [
            "translations=es",
            "translations=pt",
            "regions=us",
            "a==",
            "=x",
        ];
        let found = endings(literals.into_iter(), |_| false, alike);
        assert_eq!(
            prefixes(&found),
            [
                ("regions=".to_string(), 1),
                ("translations=".to_string(), 2)
            ]
        );
        // Values that folded under one key are its values still; under
        // several keys they are pairs, one parameter.
        let one_key = endings(literals.into_iter(), |l| l.starts_with("regions"), alike);
        assert_eq!(prefixes(&one_key), prefixes(&found));
        let pairs = ["color=red", "size=xl", "sort=asc"];
        let folded = endings(pairs.into_iter(), |l| !l.starts_with("sort"), alike);
        assert_eq!(prefixes(&folded), [("sort=".to_string(), 1)]);
        // Beside plain words folded with them, each key names its values.
        let mixed = ["color=red", "size=xl", "harbor", "summit"];
        let folded = endings(mixed.into_iter(), |_| true, alike);
        assert_eq!(
            prefixes(&folded),
            [("color=".to_string(), 1), ("size=".to_string(), 1)]
        );
    }
}
