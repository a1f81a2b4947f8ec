//! The decided view of a raw trie: which literals fold into parameters.
//!
//! Rebuilt from scratch (a pure function of the raw trie) whenever the raw
//! trie gains structure; see the module docs of [`super`] for the rules.

use std::collections::{BTreeMap, BTreeSet};

mod collections;
mod endings;

use self::collections::Sort;
use super::answer::{any_alike, envelope_leaves};
use super::naming::{NameInput, name_params};
use super::trie::{
    DELETED, MISSING, NEVER_AFTER_CALLS, Origin, POSTED, READ, REQUIRED_AFTER_CALLS,
    REQUIRED_QUERY_CALLS, RawNode, TemplaterConfig, WRITES_RESOURCE, kind_bit, kinds_of,
};
use super::{
    AnswerShape, Decision, Evidence, Explanation, JoinedParam, KeptReason, PathParam, PathTemplate,
    Rule, Segment, SegmentKind, SegmentSuffix, classify_segment, format_suffix, is_format_token,
    is_version_like, split_path, split_suffix,
};

#[derive(Debug, Default)]
pub(crate) struct ViewNode {
    literals: BTreeMap<Box<str>, ViewNode>,
    param: Option<Box<ViewParam>>,
    /// Set when everything below this node is one multi-segment parameter.
    rest: Option<Box<ViewRest>>,
    /// Parameters that share their segment with a fixed name before them,
    /// by that name and its separator (`blacklist.`, `translations=`).
    prefixed: BTreeMap<Box<str>, ViewParam>,
    /// Why this node (a literal child) stayed literal.
    kept: Option<KeptReason>,
}

#[derive(Debug)]
struct ViewParam {
    node: ViewNode,
    rule: Rule,
    kinds: Vec<SegmentKind>,
    /// Literal values folded into this parameter (sorted).
    folded: bool,
    samples: u64,
    values: Vec<String>,
    origin: Option<Origin>,
    /// Literals folded in alone, by a rule of their own (a value not found,
    /// [`Rule::Missing`]; a file like the others, [`Rule::FileLike`]; one
    /// that behaves like the values, [`Rule::LikeParam`]): `explain` of
    /// their paths says why, whatever folded the others.
    alone: Vec<(Box<str>, Rule)>,
    /// Whether the values end in a second parameter after a dot
    /// (`{documentId}.{format}`, [`endings`]).
    ids_end: bool,
}

/// The rest of the path as one parameter: a file's path
/// ([`Rule::FileTree`]) or a scoped name ([`Rule::ScopedNames`]).
#[derive(Debug)]
struct ViewRest {
    rule: Rule,
    samples: u64,
    /// Some of the paths seen (sorted, at most eight).
    values: Vec<String>,
    /// Operations on a file, found right after a file name
    /// (`/contents/a.ipynb/checkpoints`), not part of the file's path,
    /// each with the view of what follows it (`checkpoints/{checkpoint}`).
    after: BTreeMap<Box<str>, ViewNode>,
}

/// A rest of the path found below a literal, with the nodes below each
/// operation on its values, whose views [`build`] makes.
struct RestFound<'r> {
    rest: ViewRest,
    after: BTreeMap<&'r str, Vec<&'r RawNode>>,
}

impl ViewNode {
    pub(crate) fn heap_bytes(&self) -> usize {
        let lits: usize = self
            .literals
            .iter()
            .map(|(k, c)| k.len() + 48 + std::mem::size_of::<ViewNode>() + c.heap_bytes())
            .sum();
        let rest = self.rest.as_ref().map_or(0, |r| {
            let strings = r.values.iter().map(|v| v.len() + 24).sum::<usize>();
            std::mem::size_of::<ViewRest>()
                + strings
                + (r.after.iter())
                    .map(|(op, view)| op.len() + 40 + view.heap_bytes())
                    .sum::<usize>()
        });
        let prefixed: usize = (self.prefixed.iter())
            .map(|(k, p)| k.len() + 48 + p.heap_bytes())
            .sum();
        rest + lits + prefixed + self.param.as_ref().map_or(0, |p| p.heap_bytes())
    }
}

impl ViewParam {
    /// Whether `value` of this parameter ends in a second one after a dot
    /// (`2574.xml` where ids end in a format).
    fn ends_in_format(&self, value: &str) -> bool {
        self.ids_end && value.contains('.')
    }

    fn heap_bytes(&self) -> usize {
        std::mem::size_of::<ViewParam>()
            + self.node.heap_bytes()
            + (self.values.iter().map(|v| v.len() + 24)).sum::<usize>()
            + (self.alone.iter().map(|(v, _)| v.len() + 64)).sum::<usize>()
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Parent {
    Root,
    Literal,
    Param,
}

const MAX_SUFFIXES: usize = 32;
const MAX_SUFFIX_DEPTH: usize = 6;

/// Builds the view of a host's raw trie.
///
/// Two passes when the first folded words into parameters: a word that is
/// a value at one position is a value where it recurs beside other values
/// (`/u/{user}` and `/user-badges/hana`), which only a second pass, told
/// the first one's values, can see.
pub(crate) fn build_root(raw: &RawNode, cfg: &TemplaterConfig) -> ViewNode {
    let none = BTreeMap::new();
    let envelope = envelope_leaves(all_answers(&[raw]));
    let distinctive = distinctive_query_names(raw);
    let capitalised = collections::names_capitalised(raw);
    let mut first = Ctx::new(cfg, &none, envelope, distinctive, capitalised);
    let view = build(&[raw], Parent::Root, None, &BTreeSet::new(), &mut first);
    // Only a value that stayed a literal somewhere can change there.
    let recurs = (first.learnt.keys()).any(|word| first.literals.contains(word.as_str()));
    if !recurs {
        return view;
    }
    let known = first.learnt;
    build(
        &[raw],
        Parent::Root,
        None,
        &BTreeSet::new(),
        &mut Ctx::new(cfg, &known, envelope, distinctive, capitalised),
    )
}

/// Every answer recorded in the trie at and below `raws`.
pub(super) fn all_answers<'r>(raws: &[&'r RawNode]) -> impl Iterator<Item = AnswerShape> + 'r {
    let mut stack = raws.to_vec();
    std::iter::from_fn(move || {
        let node = stack.pop()?;
        stack.extend(node.literals.iter().map(|(_, child)| child));
        stack.extend(node.param.as_deref());
        Some(node.shapes.iter().copied())
    })
    .flatten()
}

/// Places (paths that calls ended below) a query parameter name may be
/// sent to and still tell an operation apart.
const DISTINCTIVE_QUERY_PLACES: usize = 2;

/// The query parameter names ([`RawNode::query`] bits) sent to calls that
/// ended below [`DISTINCTIVE_QUERY_PLACES`] places at most: a name such as
/// `postcode` belongs to one operation, while `limit` or `page` are sent to
/// every list an API has and tell nothing.
fn distinctive_query_names(raw: &RawNode) -> u64 {
    let mut places = [0usize; 64];
    let mut stack = vec![raw];
    while let Some(node) = stack.pop() {
        let children = (node.literals.iter().map(|(_, child)| child)).chain(node.param.as_deref());
        let mut sent = 0u64;
        for child in children {
            sent |= child.query;
            stack.push(child);
        }
        for (bit, count) in places.iter_mut().enumerate() {
            *count += usize::from(sent & 1 << bit != 0);
        }
    }
    (places.iter().enumerate())
        .filter(|(_, count)| (1..=DISTINCTIVE_QUERY_PLACES).contains(*count))
        .fold(0, |bits, (bit, _)| bits | 1 << bit)
}

/// Words remembered as values for the second pass (memory stays bounded).
const MAX_KNOWN_VALUES: usize = 4096;

/// What one pass over the raw trie reads and learns across positions.
struct Ctx<'c, 'r> {
    cfg: &'c TemplaterConfig,
    /// Words folded into a parameter in the first pass by comparison with
    /// other values, each with where.
    known: &'c BTreeMap<String, Known>,
    /// Words folded so in this pass, each with where.
    learnt: BTreeMap<String, Known>,
    /// The path of the position being built, parameters as `{}`.
    at: String,
    /// Every literal the view kept, anywhere.
    literals: BTreeSet<&'r str>,
    /// Set for the one position right after a parameter whose every value
    /// is an id by its spelling (a number, a UUID, a hash), and taken by it:
    /// names of sub-resources are expected there.
    after_id: bool,
    /// Set for the children of the API's top (the root, then each constant
    /// literal below it with no parameter beside it, or a version tag), and
    /// taken by them: where an API's resources are named.
    top: bool,
    /// Set for the position right after a slot folded by
    /// [`swapped_slots`], and taken by it: the rule, and how many slots
    /// below are still values.
    value_slots: Option<(Rule, usize)>,
    /// The leaves most of the API's answers carry ([`envelope_leaves`]).
    envelope: u128,
    /// Query parameter names few places of the API were sent
    /// ([`distinctive_query_names`]).
    distinctive: u64,
    /// Whether the API capitalises the names in its paths
    /// ([`collections::names_capitalised`]).
    capitalised: bool,
}

impl<'c> Ctx<'c, '_> {
    fn new(
        cfg: &'c TemplaterConfig,
        known: &'c BTreeMap<String, Known>,
        envelope: u128,
        distinctive: u64,
        capitalised: bool,
    ) -> Self {
        Self {
            capitalised,
            cfg,
            known,
            learnt: BTreeMap::new(),
            at: String::new(),
            literals: BTreeSet::new(),
            after_id: false,
            top: false,
            value_slots: None,
            envelope,
            distinctive,
        }
    }

    /// Records `word`, folded here by `rule`, as a value when the rule
    /// compared it with other values (not its spelling alone).
    fn learn(&mut self, word: &str, rule: &Rule) {
        if let Rule::Uncapitalised { alike } = rule {
            return self.learn(word, alike);
        }
        let in_group = match rule {
            Rule::Alike { .. }
            | Rule::AnswerAlike
            | Rule::Cardinality { .. }
            | Rule::ReadAlike { .. }
            | Rule::KeyedBy { .. }
            | Rule::SentAlike { .. }
            | Rule::WrittenAlike { .. }
            | Rule::Overflow { .. }
            | Rule::SwappedSlots { .. }
            | Rule::SharedIds { .. }
            | Rule::Provenance { .. } => true,
            Rule::LikeParam { .. } | Rule::WrittenBeside => false,
            _ => return,
        };
        if self.learnt.len() < MAX_KNOWN_VALUES {
            let known = self.learnt.entry(word.to_string()).or_insert(Known {
                at: format!("{}/{{}}", self.at),
                in_group,
            });
            known.in_group |= in_group;
        }
    }
}

/// Where a word was a value in the first pass.
struct Known {
    /// The position, parameters as `{}` (`/u/{}`).
    at: String,
    /// Whether a group of alike values had it, not one literal alone that
    /// answered like the values beside it (`/groups/owned` answering as a
    /// group does): only such a word joins a parameter on its own.
    in_group: bool,
}

/// Leaf literals that answer alike below a collection word with no ids,
/// from which on they are its items (see [`build`]).
const ITEM_LEAVES: usize = 2;
/// Leaf literals with no answers to compare, from which on they are values
/// by their number alone (where no collection word says they are items).
const MANY_UNANSWERED_LEAVES: usize = 5;
/// Leaf literals that answer alike below a collection word, from which on
/// they are its items even where the same words follow other collections.
const MANY_ALIKE_ITEMS: usize = 3;

/// Builds the view of the raw nodes `raws` (one position, merged). `verbs`
/// are the leaf names that the parent's sibling literals have too.
fn build<'r>(
    raws: &[&'r RawNode],
    parent: Parent,
    parent_name: Option<&str>,
    verbs: &BTreeSet<&str>,
    ctx: &mut Ctx<'_, 'r>,
) -> ViewNode {
    let cfg = ctx.cfg;
    let after_id = std::mem::take(&mut ctx.after_id);
    let top = parent == Parent::Root || std::mem::take(&mut ctx.top);
    let value_slots = std::mem::take(&mut ctx.value_slots);
    // The word this position sits below, where that is a literal.
    let parent_word = parent_name.filter(|_| parent == Parent::Literal);
    if parent == Parent::Literal
        && let Some(found) = file_tree(raws).or_else(|| scoped_names(raws, ctx.envelope))
    {
        let mut rest = found.rest;
        for (op, nodes) in found.after {
            let depth = ctx.at.len();
            ctx.at.push_str("/{}/");
            ctx.at.push_str(op);
            let view = build(&nodes, Parent::Literal, Some(op), &BTreeSet::new(), ctx);
            ctx.at.truncate(depth);
            rest.after.insert(op.into(), view);
        }
        return ViewNode {
            rest: Some(Box::new(rest)),
            ..ViewNode::default()
        };
    }
    let mut lits: BTreeMap<&'r str, Vec<&'r RawNode>> = BTreeMap::new();
    let mut params: Vec<&'r RawNode> = Vec::new();
    let (mut overflowed, mut pinned) = (0u64, false);
    for raw in raws {
        for (name, child) in &raw.literals {
            lits.entry(name).or_default().push(child);
        }
        params.extend(raw.param.as_deref());
        overflowed += raw.overflowed;
        pinned |= raw.pinned;
    }
    let weak: BTreeMap<&str, SegmentKind> = lits
        .iter()
        .filter_map(|(k, raws)| Some((*k, raws.iter().find_map(|r| r.value_kind)?)))
        .collect();
    let mut fold: BTreeMap<&str, Rule> = BTreeMap::new();
    let mut kept: BTreeMap<&str, KeptReason> = BTreeMap::new();
    // A word a version tag follows names the API or service that version
    // belongs to (`/geofences/v2/...`, `/users/v2/...`): values of one
    // parameter are not versioned each on their own.
    for (k, raws) in &lits {
        if let Some(version) = raws
            .iter()
            .flat_map(|r| r.literals.iter().map(|(name, _)| name))
            .find(|child| is_version_like(child))
        {
            kept.insert(
                k,
                KeptReason::Versioned {
                    version: version.to_string(),
                },
            );
        }
    }
    for (k, grid) in rpc_method_names(lits.keys().copied()) {
        kept.entry(k).or_insert(grid);
    }
    for (k, family) in derived_names(lits.keys().copied()) {
        kept.entry(k).or_insert(family);
    }
    let candidates: Vec<&str> = lits
        .keys()
        .copied()
        .filter(|k| {
            !is_version_like(k)
                && !weak.contains_key(k)
                && format_suffix(k).is_none()
                && !kept.contains_key(k)
        })
        .collect();
    // Leaves left out of the items here because they follow several of the
    // values before them: why they stay literal unless another rule folds them.
    let mut after_several: BTreeSet<&str> = BTreeSet::new();
    if !weak.is_empty() {
        match weak_values_kept(&weak, &lits, params.is_empty(), parent, parent_word) {
            Some(reason) => {
                for k in weak.keys() {
                    kept.insert(k, reason.clone());
                }
            }
            None => {
                for (k, kind) in &weak {
                    fold.insert(k, Rule::Segment { kind: *kind });
                }
            }
        }
    }
    // Every slot below a word whose words change places is a value.
    let (swapped, swapped_words) = match value_slots {
        _ if pinned => (None, None),
        Some(below) => (Some(below), None),
        None => match swapped_slots(raws, ctx.envelope).filter(|_| parent != Parent::Root) {
            Some(found) => {
                let rule = Rule::SwappedSlots {
                    slots: found.slots,
                    paths: found.paths,
                };
                (Some((rule, found.slots)), Some(found.words))
            }
            None => (None, None),
        },
    };
    if !pinned {
        if let Some((rule, _)) = &swapped {
            let takes_part = |k: &str| swapped_words.as_ref().is_none_or(|w| w.contains(k));
            for k in candidates.iter().filter(|k| takes_part(k)) {
                fold.insert(k, rule.clone());
            }
        }
        if overflowed > 0 {
            for k in &candidates {
                fold.insert(
                    k,
                    Rule::Overflow {
                        distinct: candidates.len(),
                    },
                );
            }
        }
        // Where the API capitalises its names, words in lowercase below a
        // name are not more names: the position holds data.
        let uncapitalised = ctx.capitalised
            && candidates.len() >= 2
            && candidates.iter().all(|k| collections::is_lowercase_word(k));
        let namespace = is_namespace(parent, parent_name) && !uncapitalised;
        for k in &candidates {
            if let Some(origin) = lits[k].iter().find_map(|r| r.origin.as_deref()) {
                // In a namespace a word seen as a name or key in a body
                // (`$.tags[].key = "demo"`) is still a name of the path
                // (`/mlflow/demo/generate`), and so is a word followed by ids
                // of its own, a collection, anywhere (`"key": "ad"` beside
                // `/ad_campaign/{id}/ad/{adId}`): APIs name their resources
                // in their bodies too. An identifier field's value is a
                // value wherever it appears. Alike siblings can still fold it.
                let collection = collections::own_ids(&lits[k]).is_some();
                if (namespace || collection) && !origin.is_id_field_value() {
                    continue;
                }
                fold.entry(k).or_insert(Rule::Provenance {
                    field_path: origin.field_path.clone(),
                    name: origin.name.clone(),
                });
            }
        }
        // Groups are formed over every candidate, so a literal already folded
        // (by provenance) still counts as evidence for its alike siblings.
        // What is left of a group after its collection names needs three
        // literals, as a group alike only by a one-segment suffix does.
        // What each candidate leads to, read once for the alike and the
        // beside-a-parameter tests.
        let varying = varying_leaves(&candidates, &lits, top, ctx.envelope, ctx.distinctive);
        let below: Vec<Suffixes<'_>> = (candidates.iter())
            .map(|k| suffixes_with(&lits[k], &varying))
            .collect();
        let sort = Sort {
            min_rest: 3,
            leaves: false,
            namespace,
        };
        let answers: Vec<Vec<AnswerShape>> = (candidates.iter())
            .map(|k| answers_beyond(&lits[k], ctx.envelope))
            .collect();
        // The calls that ended below each candidate, by path, read by
        // `interchangeable` (worked out once, when a group needs them).
        let mut calls: Option<Vec<BTreeMap<Vec<Tok<'_>>, u64>>> = None;
        let ids: Vec<BTreeSet<&str>> = (candidates.iter())
            .map(|k| collections::distinctive_ids(&lits[k]))
            .collect();
        for (group, anchor) in alike_groups(&candidates, &below, &answers, &ids, parent, namespace)
        {
            // Where names are expected, in a namespace or right after an id
            // its spelling proves (what to find under that resource:
            // `/Employer/1/Employee/...`, `/Employer/1/SubContractor/...`),
            // alike words are values only when they are interchangeable.
            let group = if namespace || after_id {
                let calls = calls.get_or_insert_with(|| {
                    (candidates.iter())
                        .map(|k| suffix_calls(&lits[k], &varying))
                        .collect()
                });
                interchangeable(group, &candidates, &below, calls, namespace, &mut kept)
            } else {
                group
            };
            if group.len() < 2 {
                continue;
            }
            // At the top of an API, words whose paths meet only through ids
            // of their own are its resources, side by side; values there
            // lead to names the API has under each of them.
            // Ids are spelled as ids (a parameter of the trie), or are
            // words that vary as values do, several below the word alone,
            // with every path below it going through them (`/license/cobalt`,
            // `/license/ember`, `/license/maple`, `/license/orion/transfer`).
            let leads_to_ids = |k: &str| {
                let keyed = || {
                    let i = candidates.iter().position(|c| *c == k)?;
                    let mut paths = below[i].keys();
                    let through_values = paths.len() > 0
                        && paths.all(|path| path.first().is_some_and(Tok::is_value));
                    let keys: BTreeSet<&str> = (lits[k].iter())
                        .flat_map(|raw| raw.literals.iter().map(|(name, _)| &**name))
                        .filter(|name| varying.holds(&[], name))
                        .collect();
                    Some(through_values && keys.len() >= MANY_ALIKE_ITEMS)
                };
                leads_to_param(&lits[k]) || keyed() == Some(true)
            };
            // Words followed by one and the same id qualify one pool of ids:
            // they are values (a kind), whatever names they look like, at
            // the top too (the ids are not their own). The other rules still
            // judge the whole group; these words fold whatever they say.
            let pooled = shared_ids(&group, &candidates, &ids);
            if top && anchor.is_none() && pooled.is_empty() && group.iter().all(|k| leads_to_ids(k))
            {
                let siblings = group.len() - 1;
                for k in group {
                    kept.entry(k)
                        .or_insert(KeptReason::TopResource { siblings });
                }
                continue;
            }
            for (k, id) in &pooled {
                fold.entry(k).or_insert(Rule::SharedIds {
                    id: id.to_string(),
                    words: pooled.len(),
                });
            }
            let rule = match anchor {
                Some(anchor) => Rule::Alike {
                    anchor: anchor.to_string(),
                },
                None => Rule::AnswerAlike,
            };
            for k in sort.group(group, &lits, &mut kept) {
                fold.entry(k).or_insert(rule.clone());
            }
            for (k, _) in pooled {
                kept.remove(k);
            }
        }
        if parent != Parent::Root {
            // Below a collection word with no ids of its own, the leaves are
            // its items (`/roles/read-only-plus`): fewer are needed, but
            // they must have answered alike, and a leaf that sibling
            // collections have too is an operation (`/experiments/search`
            // beside `/runs/search`), not an item, unless it is one of
            // several that answered alike: a collection's operations each
            // answer in their own shape, its items in one (ids drawn from
            // one pool recur under several collections: `/spells/orion`,
            // `/monsters/orion`).
            // After a word that asks for a key (`count-by`), the leaves are
            // that key's values as a collection's are its items; a path
            // that goes on names the kind of the value it leads to
            // (`/by/handle/{handle}`), and stays a name in the namespace.
            let keyed_by = parent_word.is_some_and(collections::ends_in_by);
            let items = (!namespace || keyed_by) && params.is_empty();
            // Words after an id that only the evidence of reading joins.
            let mut read_alike: BTreeSet<&str> = BTreeSet::new();
            let (threshold, open) = if items {
                // A word that is a value elsewhere is no operation, wherever
                // else it recurs (one key in several environments).
                let value = |k: &str| ctx.known.contains_key(k) || ctx.learnt.contains_key(k);
                let verbs: Vec<&str> = (candidates.iter())
                    .filter(|k| verbs.contains(*k) && !value(k))
                    .copied()
                    .collect();
                // After an id the leaves are actions on it, which may well
                // answer in one envelope (`/users/{id}/checkin`, `.../end`).
                // But an action changes what it acts on, and GET changes
                // nothing (RFC 9110, 9.2.1): words after an id that were
                // only read, none a collection, answering alike, are one
                // read in several renderings (`/invoices/{id}/{json,ubl,pdf}`).
                // A bare number or string answered says nothing of its kind
                // (`/addr/{id}/balance`, `.../totalSent`).
                let grouped_from: Vec<&str> = (candidates.iter())
                    .filter(|k| {
                        parent == Parent::Literal
                            || !collections::is_collection_word(k)
                                && ended_with(&lits[**k], |node| node.methods) == READ
                                && all_answers(&lits[**k]).all(|shape| shape.is_document())
                    })
                    .copied()
                    .collect();
                let alike_groups = cardinality_groups(
                    &grouped_from,
                    &lits,
                    MANY_ALIKE_ITEMS,
                    None,
                    ctx.envelope,
                    ctx.distinctive,
                    &mut BTreeSet::new(),
                );
                let mut alike_items: BTreeSet<&str> = (alike_groups.into_iter())
                    .map(|(group, _)| group)
                    .filter(|group| group.iter().any(|k| verbs.contains(k)))
                    .flatten()
                    .collect();
                if parent == Parent::Param {
                    read_alike.clone_from(&alike_items);
                }
                // An operation is run or read, never deleted: several words
                // that were each read and deleted are items of their own
                // (`/config/{target}/NODE_ENV`, `.../AWS_REGION`).
                let kept_items: Vec<&str> = (verbs.iter())
                    .filter(|k| read_and_deleted(&lits[**k]))
                    .copied()
                    .collect();
                if kept_items.len() >= MANY_ALIKE_ITEMS {
                    alike_items.extend(kept_items);
                }
                after_several.extend(verbs.iter().filter(|k| !alike_items.contains(*k)));
                let open: Vec<&str> = (candidates.iter())
                    .filter(|k| !after_several.contains(*k))
                    .copied()
                    .collect();
                // Words that each follow an id of their own are values
                // only when many answer alike: two actions, each tried on
                // another id, look the same (`/jobs/1/pause`, `/jobs/2/resume`).
                let after_ids = parent == Parent::Param
                    && (open.iter().flat_map(|k| &lits[k]))
                        .any(|r| r.values_before().next().is_some());
                let threshold = if after_ids {
                    MANY_ALIKE_ITEMS
                } else {
                    ITEM_LEAVES
                };
                (threshold, open)
            } else if parent == Parent::Param {
                // Leaves that follow several values of the parameter before
                // are operations on them (`/feeds/{key}/data/first`, `.../last`),
                // however alike they answer.
                let open = (candidates.iter())
                    .filter(|k| !verbs.contains(*k))
                    .copied()
                    .collect();
                (cfg.cardinality_threshold, open)
            } else if !params.is_empty() {
                // Beside values, words that answer alike but unlike the
                // values are named views of the collection (`/projects/owned`,
                // `/projects/starred` beside `/projects/{id}`); a word joins
                // the values only by answering as they do (below).
                (cfg.cardinality_threshold, Vec::new())
            } else {
                (cfg.cardinality_threshold, candidates.clone())
            };
            let sort = Sort {
                min_rest: threshold,
                leaves: true,
                namespace,
            };
            let unanswered = (!items).then_some(MANY_UNANSWERED_LEAVES);
            let mut own_names = BTreeSet::new();
            let groups = cardinality_groups(
                &open,
                &lits,
                threshold,
                unanswered,
                ctx.envelope,
                ctx.distinctive,
                &mut own_names,
            );
            // Actions among alike items are names, counted as names below.
            let groups: Vec<(Vec<&str>, Rule)> = (groups.into_iter())
                .map(|(group, rule)| (without_posted_actions(group, &lits, &mut kept), rule))
                .filter(|(group, _)| group.len() >= threshold.max(2))
                .collect();
            // In a namespace, a few leaves that answered alike among many
            // names are more names (operations answering in one envelope),
            // as values of one parameter are the most of their position.
            let grouped: usize = groups.iter().map(|(group, _)| group.len()).sum();
            let names = (candidates.len()).saturating_sub(fold.len() + grouped);
            for (group, mut rule) in groups {
                if let Rule::Cardinality { distinct }
                | Rule::SentAlike { distinct }
                | Rule::WrittenAlike { distinct } = &mut rule
                {
                    *distinct = group.len();
                }
                if group.iter().any(|k| read_alike.contains(k)) {
                    rule = Rule::ReadAlike {
                        distinct: group.len(),
                    };
                } else if keyed_by && let Some(word) = parent_word {
                    rule = Rule::KeyedBy {
                        word: word.to_string(),
                        distinct: group.len(),
                    };
                }
                if namespace && !keyed_by && names >= NAMES_AROUND_FEW * group.len() {
                    for k in group {
                        kept.entry(k).or_insert(KeptReason::AmongNames { names });
                    }
                    continue;
                }
                for k in sort.group(group, &lits, &mut kept) {
                    fold.entry(k).or_insert(rule.clone());
                }
            }
            for k in own_names {
                kept.entry(k).or_insert(KeptReason::OwnRequiredQuery);
            }
        }
        if uncapitalised {
            for rule in fold.values_mut() {
                if matches!(
                    rule,
                    Rule::Alike { .. } | Rule::AnswerAlike | Rule::Cardinality { .. }
                ) {
                    let alike = Box::new(rule.clone());
                    *rule = Rule::Uncapitalised { alike };
                }
            }
        }
        // The parameter's values so far: its own, and the literals folded
        // above. In a namespace only values that a group rule folded count
        // (several names alike there are values after all: `/u/{user}`).
        let grouped = fold
            .values()
            .filter(|r| !matches!(r, Rule::Segment { .. }))
            .count();
        let mut values: Vec<&RawNode> = params.clone();
        values.extend(fold.keys().flat_map(|k| lits[k].iter().copied()));
        if !values.is_empty() && (!namespace || (parent != Parent::Root && grouped >= 2)) {
            let beside = Beside::of(&values, ctx.envelope);
            // POST creates in a collection or runs an action; an item is
            // read, replaced, patched or deleted.
            let values_methods = ended_with(&values, |node| node.methods);
            // Their paths as the candidates' are written (leaves that vary
            // as values do, as values).
            let params_paths = suffixes_with(&params, &varying);
            let value_paths: BTreeSet<&Vec<Tok<'_>>> = (candidates.iter().zip(&below))
                .filter(|(k, _)| fold.contains_key(*k))
                .flat_map(|(_, paths)| paths.keys())
                .chain(params_paths.keys())
                .collect();
            let mut joining: Vec<(&str, Rule, bool, bool)> = Vec::new();
            for (k, own) in candidates.iter().zip(&below) {
                if fold.contains_key(k) || kept.contains_key(k) {
                    continue;
                }
                if values_methods != 0
                    && values_methods & POSTED == 0
                    && ended_with(&lits[k], |node| node.methods) == POSTED
                {
                    kept.insert(k, KeptReason::OnlyPosted);
                    continue;
                }
                // In a namespace, names lead to alike paths too
                // (`/api/user/{id}/details`, `/api/order/{id}/details`): a
                // word with paths joins the values there only when each of
                // its paths is one of theirs and none goes through ids of
                // its own (`/team/pixel/admins` beside four teams with
                // `admins`, `policies`, ...; not `/api/products/{id}`).
                if namespace && !own.is_empty() {
                    let theirs = |p: &Vec<Tok<'_>>| {
                        value_paths.contains(p) && !p.first().is_some_and(Tok::is_value)
                    };
                    if own.keys().all(theirs) {
                        let shared_paths = own.len();
                        joining.push((k, Rule::LikeParam { shared_paths }, false, true));
                    }
                    continue;
                }
                if let Some(rule) = beside.takes(&lits[k], own, false) {
                    joining.push((k, rule, own.is_empty(), true));
                } else if let Some(rule) = beside.takes(&lits[k], own, true) {
                    joining.push((k, rule, own.is_empty(), false));
                }
            }
            // Several leaves that answer alike the values, adding fields of
            // their own, are more of them (one document kind, reached by
            // other keys); one or two are views with fields of their own.
            if joining.iter().filter(|(_, _, leaf, _)| *leaf).count() < MANY_ALIKE_ITEMS {
                joining.retain(|(_, _, _, strict)| *strict);
            }
            // Ids that all share a spelling take a word as a value only
            // when several words answer like them (slugs in the place of
            // ids: `/groups/initech`, `/groups/redwood`, ...): a collection
            // has a view or two that answers as one of its items does
            // (`/broadcasts/latest`, `/users/profile`), each a name. A word
            // that leads to the ids' paths is an alias in their place
            // (`/users/me/tasks`).
            let views = joining.iter().filter(|(_, _, leaf, _)| *leaf).count();
            let id_kinds = id_spellings(&params, &fold, &weak).filter(|_| views < MANY_ALIKE_ITEMS);
            for (k, rule, leaf, _) in joining {
                match &id_kinds {
                    // A named view of the ids answers; a value not found does not.
                    Some(kinds) if leaf && rule != Rule::Missing => {
                        let id_kinds = kinds.clone();
                        kept.insert(k, KeptReason::NamedView { id_kinds });
                    }
                    _ => {
                        fold.insert(k, rule);
                    }
                }
            }
        }
        // Words that were values elsewhere are values here too, beside
        // other values: next to this position's parameter, or two of them.
        let mut recurring: Vec<(&str, &Known)> = (candidates.iter())
            .filter(|k| !fold.contains_key(*k) && !kept.contains_key(*k))
            .filter_map(|k| Some((*k, ctx.known.get(*k)?)))
            .collect();
        // Alone, a word must have been a value in a group and sit beside
        // values here; two or more need one such word among them.
        let beside_values = !values.is_empty() && (!namespace || grouped >= 2);
        if recurring.len() < 2 || !recurring.iter().any(|(_, known)| known.in_group) {
            recurring.retain(|(_, known)| beside_values && known.in_group);
        }
        if parent != Parent::Root {
            // At the top of an API a word that leads to ids of its own is one
            // of its resources, though the API names it in its values too
            // (`/issuetype/{id}` beside `?type=issuetype`).
            recurring.retain(|(k, _)| !(top && leads_to_param(&lits[*k])));
            for (k, known) in recurring {
                fold.insert(
                    k,
                    Rule::KnownValue {
                        elsewhere: known.at.clone(),
                    },
                );
            }
        }
    }
    // Whether the values are file names; a file folded in below has one of
    // their extensions, so it leaves the set as it is.
    let file_names = file_name_extensions(fold.keys().map(|k| (*k, &lits[k][..])), &params);
    // Among file names, a leaf with one of their extensions that answered
    // nothing of its own (deleted, written) is one more file.
    if !pinned && let Some(extensions) = &file_names {
        for k in &candidates {
            let own = extensions_of(k, &lits[k]);
            let silent = answers_beyond(&lits[k], ctx.envelope).is_empty();
            if fold.contains_key(k) || kept.contains_key(k) || !silent || own.len() != 1 {
                continue;
            }
            let Some(extension) = own.first().filter(|e| extensions.contains(*e)) else {
                continue;
            };
            if API_FORMATS.contains(extension) || !lits[k].iter().all(|raw| raw.is_leaf()) {
                continue;
            }
            let extension = extension.to_string();
            fold.insert(k, Rule::FileLike { extension });
        }
    }
    let shared_leaves = leaves_under_several(lits.values());
    let mut node = ViewNode::default();
    // Names whose endings are values: blacklist.{format}, translations={translation}.
    // A grid of alike endings beats the RPC methods' grid; a version after
    // a name keeps it whole.
    let ended = match pinned {
        true => endings::Endings::default(),
        false => endings::endings(
            (lits.keys().copied())
                .filter(|k| !matches!(kept.get(k), Some(KeptReason::Versioned { .. }))),
            |k| fold.contains_key(k),
            |k| answers_beyond(&lits[k], ctx.envelope),
        ),
    };
    let mut ended_names: BTreeSet<&str> = BTreeSet::new();
    for (prefix, (rule, members)) in ended.prefixed {
        let raws: Vec<&RawNode> = members
            .iter()
            .flat_map(|k| lits[k].iter().copied())
            .collect();
        let depth = ctx.at.len();
        ctx.at.push('/');
        ctx.at.push_str(&prefix);
        ctx.at.push_str("{}");
        let child = build(&raws, Parent::Param, None, &BTreeSet::new(), ctx);
        ctx.at.truncate(depth);
        let values: Vec<String> = (members.iter())
            .map(|k| k[prefix.len()..].to_string())
            .take(8)
            .collect();
        node.prefixed.insert(
            prefix.into(),
            ViewParam {
                node: child,
                rule,
                kinds: Vec::new(),
                folded: true,
                samples: raws.iter().map(|r| r.count).sum(),
                values,
                origin: None,
                alone: Vec::new(),
                ids_end: false,
            },
        );
        for k in members {
            kept.remove(k);
            fold.remove(k);
            ended_names.insert(k);
        }
    }
    let mut param_raws: Vec<&RawNode> = params.clone();
    for (name, raws) in &lits {
        if fold.contains_key(name) {
            param_raws.extend(raws.iter().copied());
            continue;
        }
        if ended_names.contains(name) {
            continue;
        }
        let depth = ctx.at.len();
        ctx.at.push('/');
        ctx.at.push_str(name);
        ctx.top = top && params.is_empty() && (lits.len() == 1 || is_version_like(name));
        let mut child = build(raws, Parent::Literal, Some(name), &shared_leaves, ctx);
        ctx.at.truncate(depth);
        child.kept = Some(if is_version_like(name) {
            KeptReason::Version
        } else if pinned {
            KeptReason::Pinned
        } else if let Some(reason) = kept.remove(name) {
            reason
        } else if after_several.contains(name) {
            KeptReason::AfterSeveral
        } else {
            KeptReason::OwnShape {
                siblings: candidates.len(),
            }
        });
        ctx.literals.insert(name);
        node.literals.insert((*name).into(), child);
    }
    if !pinned {
        lone_items_of_sibling_collections(&mut node, &lits);
        children_like_siblings(&mut node, &lits, &shared_leaves, ctx);
    }
    if !param_raws.is_empty() {
        let bits = params.iter().fold(0u16, |acc, p| acc | p.kinds)
            | (weak.iter())
                .filter(|(k, _)| fold.contains_key(*k))
                .fold(0u16, |acc, (_, kind)| acc | kind_bit(*kind));
        let kinds = kinds_of(bits);
        let rule = strongest(fold.values())
            .cloned()
            .unwrap_or_else(|| match kinds.first() {
                Some(kind) => Rule::Segment { kind: *kind },
                None => Rule::Overflow {
                    distinct: candidates.len(),
                },
            });
        // Ids that end in a format are no file names: the ending is a value.
        let rule = match file_names.filter(|_| !ended.ids_end) {
            Some(extensions) => Rule::FileNames {
                extensions: extensions.len(),
                of: Box::new(rule),
            },
            None => rule,
        };
        let mut values: BTreeSet<String> = fold.keys().map(|k| k.to_string()).collect();
        values.extend(
            params
                .iter()
                .flat_map(|p| p.values.iter().map(|v| v.to_string())),
        );
        let origin = param_raws.iter().find_map(|r| r.origin.as_deref()).cloned();
        let samples = param_raws.iter().map(|r| r.count).sum();
        for (k, rule) in &fold {
            ctx.learn(k, rule);
        }
        let verbs = leaves_of_values(&params, &lits, &fold);
        let depth = ctx.at.len();
        ctx.at.push_str("/{}");
        // `kinds` are the parameter's own when nothing folded into it.
        ctx.after_id =
            (fold.is_empty() && !kinds.is_empty() && kinds.iter().all(|k| k.is_id_like()))
                || words_recur_after(fold.keys().map(|k| &lits[k]));
        ctx.value_slots = swapped
            .filter(|(_, slots)| *slots > 1)
            .map(|(rule, slots)| (rule, slots - 1));
        let child = build(&param_raws, Parent::Param, None, &verbs, ctx);
        ctx.at.truncate(depth);
        node.param = Some(Box::new(ViewParam {
            node: child,
            rule,
            kinds,
            folded: fold.keys().any(|k| !weak.contains_key(k)) || overflowed > 0,
            samples,
            values: values.into_iter().take(8).collect(),
            origin,
            alone: (fold.iter())
                .filter(|(_, rule)| {
                    matches!(
                        rule,
                        Rule::Missing
                            | Rule::FileLike { .. }
                            | Rule::WrittenBeside
                            | Rule::LikeParam { .. }
                    )
                })
                .map(|(k, rule)| (Box::from(*k), rule.clone()))
                .collect(),
            ids_end: ended.ids_end,
        }));
    }
    node
}

/// Where a child of a node leads next: a response format, an id, a word.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Lead<'r> {
    Format(&'r str),
    Param,
    Word(&'r str),
}

/// Where the paths through `nodes` lead next.
fn leads<'r>(nodes: &[&'r RawNode]) -> BTreeSet<Lead<'r>> {
    let mut out = BTreeSet::new();
    for node in nodes {
        for (name, child) in &node.literals {
            out.insert(match format_suffix(name) {
                Some(suffix) => Lead::Format(suffix),
                // A short id the trie keeps apart (`3`) is an id all the same.
                None if child.value_kind.is_some() => Lead::Param,
                None => Lead::Word(name),
            });
        }
        if node.param.is_some() {
            out.insert(Lead::Param);
        }
    }
    out
}

/// Sibling names whose children line up. Where the children of one literal
/// here folded into a parameter, two or more children of a sibling literal
/// that each lead only where those values lead (their formats, ids, words)
/// and answer alike them are values of the same kind: a database's tables
/// beside another's (`/crm/{contacts,deals}.json` beside `/shop/{table}.json`
/// and `/shop/{table}/{id}.json`), a bucket's keys beside another's. Two
/// such children alone could be two operations of one kind; the sibling's
/// values say which. The sibling is built again with its children folded.
fn children_like_siblings<'r>(
    node: &mut ViewNode,
    lits: &BTreeMap<&'r str, Vec<&'r RawNode>>,
    verbs: &BTreeSet<&str>,
    ctx: &mut Ctx<'_, 'r>,
) {
    // The values folded below each literal that has a parameter: where they
    // lead, and what they answered.
    let mut valued: Vec<(&str, BTreeSet<Lead<'r>>, Vec<AnswerShape>)> = Vec::new();
    for (name, child) in &node.literals {
        let Some(raws) = lits.get(&**name).filter(|_| child.param.is_some()) else {
            continue;
        };
        let values: Vec<&RawNode> = (raws.iter())
            .flat_map(|raw| {
                let folded = (raw.literals.iter())
                    .filter(|(text, _)| format_suffix(text).is_none())
                    .filter(|(text, _)| !child.literals.contains_key(&**text))
                    .map(|(_, value)| value);
                folded.chain(raw.param.as_deref())
            })
            .collect();
        valued.push((name, leads(&values), answers_beyond(&values, ctx.envelope)));
    }
    if valued.is_empty() {
        return;
    }
    let mut rebuilt: Vec<(&'r str, String)> = Vec::new();
    for (name, raws) in lits {
        let Some(child) = node.literals.get(*name) else {
            continue;
        };
        if child.param.is_some() || child.rest.is_some() {
            continue;
        }
        let mut children: BTreeMap<&str, Vec<&RawNode>> = BTreeMap::new();
        for raw in raws {
            for (text, below) in &raw.literals {
                if format_suffix(text).is_none() && !is_version_like(text) {
                    children.entry(text).or_default().push(below);
                }
            }
        }
        if children.len() < 2 || raws.iter().any(|raw| raw.param.is_some() || raw.pinned) {
            continue;
        }
        let seen: Vec<(BTreeSet<Lead<'r>>, Vec<AnswerShape>)> = (children.values())
            .map(|below| (leads(below), answers_beyond(below, ctx.envelope)))
            .collect();
        let sibling = valued.iter().find(|(sibling, to, answered)| {
            *sibling != *name
                && (seen.iter()).all(|(own, shapes)| {
                    !own.is_empty() && own.is_subset(to) && any_alike(shapes, answered)
                })
        });
        if let Some((sibling, ..)) = sibling {
            rebuilt.push((name, sibling.to_string()));
        }
    }
    for (name, sibling) in rebuilt {
        let depth = ctx.at.len();
        ctx.at.push('/');
        ctx.at.push_str(name);
        ctx.value_slots = Some((Rule::LikeSiblings { sibling }, 1));
        let mut child = build(&lits[name], Parent::Literal, Some(name), verbs, ctx);
        ctx.at.truncate(depth);
        if let Some(old) = node.literals.get_mut(name) {
            child.kept = old.kept.take();
            *old = child;
        }
    }
}

/// Sibling collections that take words as keys of their items, from which
/// on a lone word below another sibling is its item.
const SLUG_COLLECTIONS: usize = 2;
/// Answer leaves the items of those collections all carry, at least.
const MIN_ITEM_LEAVES: u32 = 2;

/// Collections side by side address their items alike. Where two or more of
/// the plural words at a position take words as their items' keys
/// (`/api/spells/{spell}`, `/api/classes/{class}`, slugs folded by what
/// follows or answers), the words that end the path below another, with
/// nothing else below it, are that collection's items, not names, when
/// each answered as the siblings' items all do: one word
/// (`/api/feats/grappler`), or up to [`ITEM_LEAVES`] whose answers differ
/// in fields an item need not carry, so that no other rule could fold them
/// (`/nh/tools/nebula`, `/nh/tools/vertex`): the few the traffic
/// showed. Where the siblings' items share too few fields to say (a region,
/// a store, each a shape of its own), a word answering in the shape of
/// the items of two of them is one. Beside ids of one spelling a word is a
/// view instead (`/users/me`), so only slug keys count; a named list
/// (`/users/search`) answers in no item's shape.
fn lone_items_of_sibling_collections(node: &mut ViewNode, lits: &BTreeMap<&str, Vec<&RawNode>>) {
    let takes_slugs = |child: &ViewNode| {
        child.param.as_ref().is_some_and(|p| {
            p.folded && p.kinds.is_empty() && !matches!(p.rule, Rule::Segment { .. })
        })
    };
    let siblings: Vec<&str> = (node.literals.iter())
        .filter(|(name, child)| collections::is_collection_word(name) && takes_slugs(child))
        .map(|(name, _)| &**name)
        .collect();
    let collections = siblings.len();
    if collections < SLUG_COLLECTIONS {
        return;
    }
    // What the items of every one of those collections answer with (`index`,
    // `name`, `url`): an item of another collection answers with it too,
    // where a name of the API (`/mail_settings/footer`) answers in a shape
    // of its own.
    // Where they share too few (each collection's items a shape of their
    // own), an item answers in the very shape of the items of two of them.
    let item_shapes = |collection: &str| -> Vec<AnswerShape> {
        (lits.get(collection).into_iter().flatten())
            .flat_map(|raw| raw.literals.iter().map(|(_, item)| item))
            .flat_map(|item| item.answer_shapes())
            .collect()
    };
    let answered: Vec<Vec<AnswerShape>> = (siblings.iter())
        .map(|name| item_shapes(name))
        .filter(|shapes| AnswerShape::union_of(shapes) != 0)
        .collect();
    if answered.len() < SLUG_COLLECTIONS {
        return;
    }
    let common = (answered.iter()).fold(!0u128, |common, shapes| {
        common & AnswerShape::union_of(shapes)
    });
    let answers_as_items = |shape: AnswerShape| {
        if common.count_ones() >= MIN_ITEM_LEAVES {
            return shape.carries(common);
        }
        (answered.iter())
            .filter(|items| {
                items
                    .iter()
                    .any(|item| item.is_document() && item.alike(&shape))
            })
            .count()
            >= SLUG_COLLECTIONS
    };
    for (name, child) in &mut node.literals {
        if !collections::is_collection_word(name)
            || child.param.is_some()
            || child.rest.is_some()
            || child.literals.is_empty()
            || child.literals.len() > ITEM_LEAVES
        {
            continue;
        }
        let seen = |word: &str| -> Vec<&RawNode> {
            (lits.get(&**name).into_iter().flatten())
                .flat_map(|raw| raw.literals.iter())
                .filter(|(text, _)| &**text == word)
                .map(|(_, raw)| raw)
                .collect()
        };
        // Every word below it ends there and answered as the siblings'
        // items do: the items the traffic happened to show.
        let items = (child.literals.iter()).all(|(word, leaf)| {
            collections::is_name_word(word)
                && ends_here(leaf)
                && (seen(word).iter().flat_map(|raw| raw.answer_shapes())).any(answers_as_items)
        });
        if !items {
            continue;
        }
        let words: Vec<String> = child.literals.keys().map(|w| w.to_string()).collect();
        let samples = (words.iter().flat_map(|w| seen(w)))
            .map(|raw| raw.count)
            .sum();
        let mut leaves = std::mem::take(&mut child.literals).into_values();
        let Some(mut leaf) = leaves.next() else {
            continue;
        };
        // Leaves hold only response formats (`.json`): the items' together.
        for other in leaves {
            for (format, node) in other.literals {
                leaf.literals.entry(format).or_insert(node);
            }
        }
        leaf.kept = None;
        child.param = Some(Box::new(ViewParam {
            node: leaf,
            rule: Rule::SiblingItems { collections },
            kinds: Vec::new(),
            folded: true,
            samples,
            values: words,
            origin: None,
            alone: Vec::new(),
            ids_end: false,
        }));
    }
}

/// Whether a flow that ended at `raws` (or at a response format below
/// them) was a PUT, DELETE or PATCH, which act on the resource a path names.
fn written_to(raws: &[&RawNode]) -> bool {
    ended_with(raws, |node| node.methods) & WRITES_RESOURCE != 0
}

/// Whether the flows that ended at `raws` both read (GET) and deleted what
/// the path names: a resource's life, which no operation has.
fn read_and_deleted(raws: &[&RawNode]) -> bool {
    let methods = ended_with(raws, |node| node.methods);
    methods & READ != 0 && methods & DELETED != 0
}

/// Whether any path through `raws` goes on to a parameter (an id of theirs).
fn leads_to_param(raws: &[&RawNode]) -> bool {
    raws.iter().any(|raw| raw.param.is_some())
}

/// Whether the flows that ended at `raws` (or at a response format below
/// them) were all PUT, DELETE or PATCH: each wrote the resource the path
/// names, so the path names a resource, not an operation.
fn only_written(raws: &[&RawNode]) -> bool {
    let methods = ended_with(raws, |node| node.methods);
    methods != 0 && methods & !WRITES_RESOURCE == 0
}

/// The union of one bitset (`bits`) of the flows that ended at `raws` or at
/// a response format below them (`/u/ann` and `/u/ann.json` are one path).
fn ended_with(raws: &[&RawNode], bits: impl Fn(&RawNode) -> u8) -> u8 {
    ended_at(raws).fold(0u8, |all, node| all | bits(node))
}

/// The nodes flows ending at `raws` end at: each, and a response format
/// below each (`/u/ann` and `/u/ann.json` both end at `ann`).
fn ended_at<'r>(raws: &[&'r RawNode]) -> impl Iterator<Item = &'r RawNode> {
    raws.iter().flat_map(|raw| {
        let formats = (raw.literals.iter())
            .filter(|(text, _)| is_format_token(text))
            .map(|(_, child)| child);
        std::iter::once(*raw).chain(formats)
    })
}

/// Whether every flow that ended at `raws` (or at a response format below
/// them) answered 404 Not Found or 410 Gone: nothing exists at the path.
fn only_missing(raws: &[&RawNode]) -> bool {
    ended_with(raws, |node| node.statuses) == MISSING
}

/// Whether no path goes on below a view node but a response format
/// (`design-team` of `/groups/design-team.json`).
fn ends_here(node: &ViewNode) -> bool {
    node.param.is_none()
        && node.rest.is_none()
        && (node.literals.iter()).all(|(text, child)| is_format_token(text) && ends_here(child))
}

/// The spellings of a position's values when every one is an id by its
/// spelling alone (`42`, a UUID): its own values and the literals folded
/// for their kind, none folded for another reason. `None` otherwise.
fn id_spellings(
    params: &[&RawNode],
    fold: &BTreeMap<&str, Rule>,
    weak: &BTreeMap<&str, SegmentKind>,
) -> Option<Vec<SegmentKind>> {
    if !fold.keys().all(|k| weak.contains_key(k)) || params.iter().any(|p| p.kinds == 0) {
        return None;
    }
    let bits = (params.iter()).fold(0u16, |acc, p| acc | p.kinds)
        | (fold.keys()).fold(0u16, |acc, k| acc | kind_bit(weak[k]));
    let kinds = kinds_of(bits);
    (!kinds.is_empty() && kinds.iter().all(|k| k.is_id_like())).then_some(kinds)
}

/// Most slots, and most paths, [`swapped_slots`] reads below one word.
const SWAP_MAX_SLOTS: usize = 6;
const SWAP_MAX_PATHS: usize = 256;

/// Where every slot below `raws` is a value because words change places
/// among the slots: the words of the first slot that take part (all but
/// those whose paths are of other depths: `/invocations/global` beside
/// `/invocations/beta/atlas`), the number of slots and of paths.
///
/// The paths through those words are all of one depth (two slots or
/// more), three at least, each slot holds two values or more, a word of
/// the first slot is found in another (or the parts of first words that
/// are two words joined by `-` move: into another slot, or into each
/// other's place, as `harbor` in `cobalt-harbor` and `harbor-tango`),
/// and the paths answered alike (or
/// none answered more than the API's envelope). Names have one place in a
/// hierarchy; values of one domain fill any slot (`/rates/USD/EUR`,
/// `/rates/EUR/USD`; `/search/cedar/tango`, `/search/tango/cedar`). Values
/// of the parameter below `raws`, if any, must take part.
fn swapped_slots<'r>(raws: &[&'r RawNode], envelope: u128) -> Option<SwappedSlots<'r>> {
    type Ends<'r> = BTreeMap<Vec<Option<&'r str>>, Vec<AnswerShape>>;
    fn walk<'r>(node: &'r RawNode, slots: &mut Vec<Option<&'r str>>, ends: &mut Ends<'r>) -> bool {
        if slots.len() > SWAP_MAX_SLOTS || ends.len() > SWAP_MAX_PATHS {
            return false;
        }
        if node.terminal > 0 {
            (ends.entry(slots.clone()).or_default()).extend(node.answer_shapes());
        }
        for (name, child) in &node.literals {
            if is_format_token(name) {
                return false;
            }
            slots.push(Some(name));
            let ok = walk(child, slots, ends);
            slots.pop();
            if !ok {
                return false;
            }
        }
        match &node.param {
            Some(p) => {
                slots.push(None);
                let ok = walk(p, slots, ends);
                slots.pop();
                ok
            }
            None => true,
        }
    }
    // The paths through each word of the first slot (`None`: the
    // parameter's values), when they are all of one depth.
    let mut firsts: BTreeMap<Option<&'r str>, Vec<&'r RawNode>> = BTreeMap::new();
    for raw in raws {
        for (name, child) in &raw.literals {
            firsts.entry(Some(&**name)).or_default().push(child);
        }
        if let Some(p) = &raw.param {
            firsts.entry(None).or_default().push(p);
        }
    }
    let mut by_depth: BTreeMap<usize, Ends<'r>> = BTreeMap::new();
    let mut param_depth = None;
    for (first, nodes) in &firsts {
        if first.is_some_and(is_format_token) {
            continue;
        }
        let mut ends = Ends::new();
        let mut slots = vec![*first];
        if !nodes.iter().all(|n| walk(n, &mut slots, &mut ends)) {
            return None;
        }
        let Some(depth) = ends.keys().next().map(Vec::len) else {
            continue;
        };
        if ends.keys().any(|p| p.len() != depth) {
            if first.is_none() {
                return None;
            }
            continue;
        }
        if first.is_none() {
            param_depth = Some(depth);
        }
        by_depth.entry(depth).or_default().extend(ends);
    }
    let (depth, ends) = by_depth.into_iter().max_by_key(|(_, ends)| ends.len())?;
    if param_depth.is_some_and(|d| d != depth) {
        return None;
    }
    if ends.len() < MANY_ALIKE_ITEMS || depth < 2 {
        return None;
    }
    let slots: Vec<BTreeSet<Option<&str>>> = (0..depth)
        .map(|i| ends.keys().map(|p| p[i]).collect())
        .collect();
    // The first slot's words are judged: one of them is found in another
    // slot (`arrivals/<a>/<b>` and `departures/<a>/<b>`, whose values below
    // change places, are names), on a path another word leads: a word that
    // only repeats itself below itself (`profile/profile` beside
    // `profile/map`) is a name that recurs, not one that moves, unless the
    // words below are no hierarchy: one of them is below two words
    // (`cedar/cedar` beside `cedar/tango` and `falcon/tango`).
    let below_several = (1..depth).any(|i| {
        let mut firsts: BTreeMap<&str, Option<&str>> = BTreeMap::new();
        (ends.keys()).any(|p| match p[i] {
            Some(word) => *firsts.entry(word).or_insert(p[0]) != p[0],
            None => false,
        })
    });
    let found_elsewhere = |w: &str, first: &str| {
        (ends.keys()).any(|p| (p[0] != Some(first) || below_several) && p[1..].contains(&Some(w)))
    };
    // A word of the first slot may be two values joined by `-`
    // (`harbor-tango`): its parts move as words do, into another slot or
    // into each other's place (`cobalt-harbor` beside `harbor-tango`).
    let parts: Vec<(&str, (&str, &str))> = (slots[0].iter().flatten())
        .filter_map(|w| Some((*w, joined_parts(w)?)))
        .collect();
    let parts_swap = (parts.iter()).any(|(_, (a, _))| parts.iter().any(|(_, (_, b))| a == b));
    let swapped = parts_swap
        || (slots[0].iter().flatten()).any(|w| found_elsewhere(w, w))
        || (parts.iter()).any(|(w, (a, b))| found_elsewhere(a, w) || found_elsewhere(b, w));
    if !swapped || slots.iter().any(|words| words.len() < 2) {
        return None;
    }
    let answers: Vec<Vec<AnswerShape>> = (ends.values())
        .map(|shapes| {
            (shapes.iter())
                .filter(|s| !s.only_envelope(envelope))
                .map(|s| s.beyond(envelope))
                .collect()
        })
        .collect();
    let alike = if answers.iter().all(Vec::is_empty) {
        true
    } else {
        let mut uf = UnionFind::new(answers.len());
        for i in 0..answers.len() {
            for j in i + 1..answers.len() {
                if any_alike(&answers[i], &answers[j]) {
                    uf.union(i, j);
                }
            }
        }
        uf.groups(1).len() == 1
    };
    alike.then(|| SwappedSlots {
        words: slots[0].iter().flatten().copied().collect(),
        slots: depth,
        paths: ends.len(),
    })
}

/// The two parts of a word that is two words joined by one `-`
/// (`harbor-tango`), each a word of letters or digits.
fn joined_parts(word: &str) -> Option<(&str, &str)> {
    let (a, b) = word.split_once('-')?;
    let part = |p: &str| !p.is_empty() && p.bytes().all(|c| c.is_ascii_alphanumeric());
    (part(a) && part(b)).then_some((a, b))
}

/// What [`swapped_slots`] found.
struct SwappedSlots<'r> {
    /// The words of the first slot that are values.
    words: BTreeSet<&'r str>,
    slots: usize,
    paths: usize,
}

/// Paths below a literal that make a file tree ([`file_tree`]).
const FILE_TREE_MIN_FILES: usize = 3;
/// File extensions that name a response format of an API, not a file:
/// paths that all end so are operations (`/t/{id}/posts.json`).
const API_FORMATS: [&str; 2] = ["json", "xml"];

/// Whether the paths below `raws` are a file tree, read as one parameter:
/// at least [`FILE_TREE_MIN_FILES`] leaves at two or more depths, each
/// ending in a file name (`stem.ext`), not all in an API's response format,
/// and not all with two dots or more: those are host names
/// (`/domains/verify/mail.example.com`). Directories may answer too (a
/// listing); a leaf without an extension, or one reached through an id, is
/// an operation, and no tree. A file may
/// be followed by operations on it (`a.ipynb/checkpoints`): words without
/// an extension right after a file name, each a leaf or leading on to paths
/// with no file name in them (`checkpoints/{id}`).
fn file_tree<'r>(raws: &[&'r RawNode]) -> Option<RestFound<'r>> {
    struct Seen<'r> {
        files: BTreeSet<String>,
        depths: BTreeSet<usize>,
        other_ext: bool,
        /// Whether a name has one dot: names that all have two or more
        /// (`cedar.example.com`) are host names, not files.
        one_dot: bool,
        samples: u64,
        after: BTreeMap<&'r str, Vec<&'r RawNode>>,
    }
    /// The operations below a file `node` (words without an extension,
    /// each a leaf or leading on to paths that end in no file name:
    /// `checkpoints/{id}`), or `None` when anything else is below it.
    fn operations(node: &RawNode) -> Option<Vec<(&str, &RawNode)>> {
        let words = (node.literals.iter()).map(|(name, child)| (&**name, child));
        let ops: Vec<(&str, &RawNode)> = words
            .filter(|(name, child)| {
                no_file_below(child)
                    && child.value_kind.is_none()
                    && file_extension(name).is_none()
                    && format_suffix(name).is_none()
            })
            .collect();
        (node.param.is_none() && !ops.is_empty() && ops.len() == node.literals.len()).then_some(ops)
    }
    /// Whether no path below `node` ends in a file name.
    fn no_file_below(node: &RawNode) -> bool {
        (node.literals.iter()).all(|(name, child)| {
            format_suffix(name).is_some() || file_extension(name).is_none() && no_file_below(child)
        }) && node.param.as_deref().is_none_or(no_file_below)
    }
    /// Whether a name has one dot, as a file's (`a.txt`) and not a host's.
    fn one_dot(name: &str) -> bool {
        name.bytes().filter(|b| *b == b'.').count() == 1
    }
    /// Visits `node`, reached by `path`; `false` when a leaf is no file.
    fn visit<'r>(node: &'r RawNode, path: &mut String, depth: usize, seen: &mut Seen<'r>) -> bool {
        seen.samples += node.terminal;
        let name = path.rsplit('/').next().unwrap_or_default();
        let ext = file_extension(name);
        if let Some(ops) = ext.and_then(|_| operations(node)) {
            seen.other_ext |= ext.is_some_and(|ext| !API_FORMATS.contains(&ext));
            seen.one_dot |= one_dot(name);
            seen.depths.insert(depth);
            seen.files.insert(path.clone());
            for (op, child) in ops {
                seen.samples += child.terminal;
                seen.after.entry(op).or_default().push(child);
            }
            return true;
        }
        if node.is_leaf() {
            // The leaf's own flows and those with a format suffix on it.
            let mut ends: Vec<String> = Vec::new();
            if node.terminal > 0 {
                ends.push(path.clone());
            }
            for (token, child) in &node.literals {
                seen.samples += child.terminal;
                let suffix = format_suffix(token).unwrap_or_default();
                ends.push(format!("{path}{suffix}"));
            }
            for end in ends {
                let name = end.rsplit('/').next().unwrap_or_default();
                let Some(ext) = file_extension(name) else {
                    return false;
                };
                seen.other_ext |= !API_FORMATS.contains(&ext);
                seen.one_dot |= one_dot(name);
                seen.depths.insert(depth);
                seen.files.insert(end);
            }
            return true;
        }
        if node.param.is_some() {
            return false;
        }
        for (name, child) in &node.literals {
            let len = path.len();
            // A file whose extension the trie keeps apart (`untitled` and
            // `.txt`), followed by operations (`untitled.txt/checkpoints`).
            if let Some(suffix) = format_suffix(name) {
                path.push_str(suffix);
                let file = is_format_token(name) && operations(child).is_some();
                let file = file && visit(child, path, depth, seen);
                path.truncate(len);
                if !file {
                    return false;
                }
                continue;
            }
            path.push('/');
            path.push_str(name);
            let file = visit(child, path, depth + 1, seen);
            path.truncate(len);
            if !file {
                return false;
            }
        }
        true
    }
    let mut seen = Seen {
        files: BTreeSet::new(),
        depths: BTreeSet::new(),
        other_ext: false,
        one_dot: false,
        samples: 0,
        after: BTreeMap::new(),
    };
    for raw in raws {
        if raw.is_leaf() || raw.pinned || raw.overflowed > 0 {
            return None;
        }
        for (name, child) in &raw.literals {
            let mut path = name.to_string();
            if format_suffix(name).is_some() || !visit(child, &mut path, 1, &mut seen) {
                return None;
            }
        }
        if raw.param.is_some() {
            return None;
        }
    }
    // Paths that all pass through one name have it for a route's segment
    // (`/api/contents/...`): the files' paths start below it.
    let top: BTreeSet<&str> = (raws.iter())
        .flat_map(|raw| raw.literals.iter().map(|(name, _)| &**name))
        .collect();
    let tree = seen.files.len() >= FILE_TREE_MIN_FILES
        && seen.depths.len() >= 2
        && seen.other_ext
        && seen.one_dot
        && top.len() >= 2;
    tree.then(|| RestFound {
        rest: ViewRest {
            rule: Rule::FileTree {
                files: seen.files.len(),
                depths: seen.depths.len(),
            },
            samples: seen.samples,
            values: seen.files.into_iter().take(8).collect(),
            after: BTreeMap::new(),
        },
        after: seen.after,
    })
}

/// The extensions the values of a parameter end in, when they are file
/// names ([`Rule::FileNames`]): two or more extensions, not all an API's
/// response formats, and no value seen with two (a format chosen per call,
/// `12.json` and `12.xml`, is one). `folded` are the literals folded into the
/// parameter with their nodes, `params` the nodes of values seen as ids.
fn file_name_extensions<'r>(
    folded: impl Iterator<Item = (&'r str, &'r [&'r RawNode])>,
    params: &[&'r RawNode],
) -> Option<BTreeSet<&'r str>> {
    let mut extensions = extensions_of("", params);
    if extensions.len() >= 2 {
        return None;
    }
    for (name, raws) in folded {
        let own = extensions_of(name, raws);
        if own.len() >= 2 {
            return None;
        }
        extensions.extend(own);
    }
    let files = extensions.len() >= 2 && extensions.iter().any(|e| !API_FORMATS.contains(e));
    files.then_some(extensions)
}

/// The extensions a value at `raws` ends in: its name's own (`hello.py`)
/// and the response formats the trie kept apart after it (`data`, `.csv`).
fn extensions_of<'r>(name: &'r str, raws: &[&'r RawNode]) -> BTreeSet<&'r str> {
    (raws.iter().flat_map(|raw| &raw.literals))
        .filter(|(token, _)| is_format_token(token))
        .filter_map(|(token, _)| format_suffix(token)?.strip_prefix('.'))
        .chain(file_extension(name))
        .collect()
}

/// Scoped names needed below a literal before they are one parameter: one
/// alone could as well be a name of the API's own.
const MIN_SCOPED_NAMES: usize = 2;

/// Whether a segment is a scope as npm spells one (`@jupyterlab`, `@types`):
/// `@`, then a name.
fn is_scope(segment: &str) -> bool {
    segment.strip_prefix('@').is_some_and(|name| {
        name.bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphanumeric())
            && (name.bytes()).all(|b| b.is_ascii_alphanumeric() || b"-._".contains(&b))
    })
}

/// Whether the paths below `raws` each name a package, most in a scope
/// (`@scope/name`, npm's spelling, kept as two segments by registries, CDNs
/// and the apps built on them), read as one parameter of one or two
/// segments: the scope alone names nothing. Every literal below is a scope
/// or a name without one, at least one a scope; every name ends the path,
/// but for what ends it (a custom method, a response format, an operation
/// word); and the names that answered answered alike, as values of one
/// parameter do. Names that repeat in every scope are words after values
/// (`/@ann/followers`, `/@bob/followers`: handles), not names.
fn scoped_names<'r>(raws: &[&'r RawNode], envelope: u128) -> Option<RestFound<'r>> {
    // Most literals have no scope below them: they are done at a glance.
    if !(raws.iter()).any(|raw| raw.literals.iter().any(|(name, _)| is_scope(name))) {
        return None;
    }
    let mut seen = ScopedSeen::default();
    let opaque = |node: &RawNode| node.param.is_some() || node.pinned || node.overflowed > 0;
    for raw in raws {
        if opaque(raw) || raw.literals.is_empty() {
            return None;
        }
        for (first, below) in &raw.literals {
            if format_suffix(first).is_some() || opaque(below) {
                return None;
            }
            if !is_scope(first) {
                seen.name("", first, below, envelope)?;
                continue;
            }
            if below.terminal > 0 || below.literals.is_empty() {
                return None;
            }
            seen.scopes.insert(first);
            for (name, node) in &below.literals {
                if format_suffix(name).is_some() || is_scope(name) || opaque(node) {
                    return None;
                }
                seen.name(first, name, node, envelope)?;
            }
        }
    }
    // Alike as values of one parameter are: each like another, all linked.
    let answered: Vec<&Vec<AnswerShape>> =
        (seen.answers.iter()).filter(|a| !a.is_empty()).collect();
    let mut linked = UnionFind::new(answered.len());
    for i in 0..answered.len() {
        for j in i + 1..answered.len() {
            if any_alike(answered[i], answered[j]) {
                linked.union(i, j);
            }
        }
    }
    let alike = answered.len() >= MIN_SCOPED_NAMES
        && linked.groups(MIN_SCOPED_NAMES).first().map(Vec::len) == Some(answered.len());
    let own_names = seen.words.len() * 2 > seen.pairs.len();
    let scoped = !seen.scopes.is_empty() && seen.names.len() >= MIN_SCOPED_NAMES;
    (scoped && alike && own_names).then(|| RestFound {
        rest: ViewRest {
            rule: Rule::ScopedNames {
                names: seen.names.len(),
                scopes: seen.scopes.len(),
            },
            samples: seen.samples,
            values: seen.names.into_iter().take(8).collect(),
            after: BTreeMap::new(),
        },
        after: seen.after,
    })
}

/// What [`scoped_names`] saw below a literal.
#[derive(Default)]
struct ScopedSeen<'r> {
    /// The names as written (`@scope/name:plugin`), each once.
    names: BTreeSet<String>,
    /// The names without their scopes, and with them.
    words: BTreeSet<&'r str>,
    pairs: BTreeSet<(&'r str, &'r str)>,
    scopes: BTreeSet<&'r str>,
    /// Operation words after a name (`/@scope/name/versions`), each with
    /// the nodes it ended at.
    after: BTreeMap<&'r str, Vec<&'r RawNode>>,
    /// What each name answered.
    answers: Vec<Vec<AnswerShape>>,
    samples: u64,
}

impl<'r> ScopedSeen<'r> {
    /// Takes the name `name` in `scope` (empty: none), at `node`; `None`
    /// when a path goes on below it but for what may end a name.
    fn name(
        &mut self,
        scope: &'r str,
        name: &'r str,
        node: &'r RawNode,
        envelope: u128,
    ) -> Option<()> {
        let written = |suffix: &str| match scope {
            "" => format!("{name}{suffix}"),
            _ => format!("{scope}/{name}{suffix}"),
        };
        let mut shapes: Vec<AnswerShape> = node.shapes.clone();
        self.samples += node.terminal;
        if node.terminal > 0 || (node.literals.iter()).any(|(t, _)| format_suffix(t).is_none()) {
            self.names.insert(written(""));
        }
        for (next, child) in &node.literals {
            if !child.is_leaf() {
                return None;
            }
            self.samples += child.terminal;
            if let Some(suffix) = format_suffix(next) {
                shapes.extend(child.answer_shapes());
                self.names.insert(written(suffix));
            } else if file_extension(next).is_none() && child.value_kind.is_none() {
                self.after.entry(next).or_default().push(child);
            } else {
                return None;
            }
        }
        self.words.insert(name);
        self.pairs.insert((scope, name));
        self.answers
            .push(shapes.into_iter().map(|s| s.beyond(envelope)).collect());
        Some(())
    }
}

/// The extension of a file name (`readme.md` → `md`): one to five
/// alphanumeric characters, a letter among them, after a non-empty stem.
fn file_extension(name: &str) -> Option<&str> {
    let (stem, ext) = name.rsplit_once('.')?;
    let fits = (1..=5).contains(&ext.len())
        && ext.bytes().all(|b| b.is_ascii_alphanumeric())
        && ext.bytes().any(|b| b.is_ascii_alphabetic());
    (fits && !stem.is_empty()).then_some(ext)
}

/// Dotted method names of an RPC API among `names` (`album.tracks.get`,
/// `artist.get`, `artist.search`, `track.search`), each with why: words
/// joined by dots where two first words (resources) share two last words
/// (methods), and so every name whose resource has several methods or whose
/// method several resources. Values with dots (`fatima.z`, host names)
/// make no such grid: a method is a word that several resources share, and
/// a resource has several methods. A response format after the method
/// (`order.list.json`) is no method.
fn rpc_method_names<'a>(names: impl Iterator<Item = &'a str>) -> Vec<(&'a str, KeptReason)> {
    let dotted: Vec<(&str, &str, &str)> = names
        .filter_map(|name| {
            let method = (name.rsplit_once('.'))
                .filter(|(stem, ext)| API_FORMATS.contains(ext) && stem.contains('.'))
                .map_or(name, |(stem, _)| stem);
            let (first, _) = method.split_once('.')?;
            let (_, last) = method.rsplit_once('.')?;
            let words = method
                .split('.')
                .all(|w| w.len() >= 2 && w.bytes().all(|b| b.is_ascii_alphabetic() || b == b'_'));
            words.then_some((name, first, last))
        })
        .collect();
    let mut methods: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    let mut resources: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for (_, first, last) in &dotted {
        methods.entry(first).or_default().insert(last);
        resources.entry(last).or_default().insert(first);
    }
    // Two resources that share two methods: a grid values do not make
    // (`delta.globex.com`, `delta.contoso.org`, `gamma.contoso.org` share
    // `delta` and `org` but no two labels in all four ways).
    let shared = |a: &BTreeSet<&str>, b: &BTreeSet<&str>| a.intersection(b).nth(1).is_some();
    let many: Vec<&BTreeSet<&str>> = methods.values().filter(|m| m.len() >= 2).collect();
    let grid = many
        .iter()
        .enumerate()
        .any(|(i, a)| many[i + 1..].iter().any(|b| shared(a, b)));
    if !grid {
        return Vec::new();
    }
    dotted
        .into_iter()
        .filter(|(_, first, last)| methods[first].len() >= 2 || resources[last].len() >= 2)
        .map(|(name, _, last)| {
            let reason = KeptReason::RpcMethod {
                method: last.to_string(),
                resources: resources[last].len(),
            };
            (name, reason)
        })
        .collect()
}

/// Sibling names with the same word added that make a family.
const DERIVED_FAMILY: usize = 2;

/// Names among `names` that are built from one another: a sibling's name
/// with a word added at a word boundary (`genderBatch` beside `gender`,
/// `order_items` beside `order`), where at least [`DERIVED_FAMILY`] siblings
/// are named again with the same word. Such a family is a set of
/// operations (each one and its batch form); values of one parameter are
/// drawn, not built from each other. The word added must hold two letters,
/// so numbered copies of a value (`post`, `post-2`) make no family.
fn derived_names<'a>(names: impl Iterator<Item = &'a str>) -> Vec<(&'a str, KeptReason)> {
    let names: BTreeSet<&str> = names.collect();
    let mut families: BTreeMap<&str, Vec<(&str, &str)>> = BTreeMap::new();
    for name in &names {
        for (i, c) in name.char_indices().skip(1) {
            let (base, suffix) = name.split_at(i);
            let boundary = c.is_ascii_uppercase() || matches!(c, '_' | '-' | '.');
            let word = suffix.bytes().filter(u8::is_ascii_alphabetic).count() >= 2;
            if boundary && word && names.contains(base) {
                families.entry(suffix).or_default().push((base, name));
            }
        }
    }
    let mut kept = BTreeMap::new();
    for (suffix, pairs) in &families {
        if pairs.len() < DERIVED_FAMILY {
            continue;
        }
        // A name with the family's word whose base was not called is one
        // of the family too (`religionFullBatch` beside `genderBatch`).
        let members = (pairs.iter()).flat_map(|(base, derived)| [*base, *derived]);
        let named_again = (names.iter().copied())
            .filter(|name| name.len() > suffix.len() && name.ends_with(suffix));
        for name in members.chain(named_again) {
            kept.entry(name).or_insert_with(|| KeptReason::Derived {
                suffix: suffix.to_string(),
                bases: pairs.len(),
            });
        }
    }
    kept.into_iter().collect()
}

/// Names of leaf literals below a parameter's values that act on a value
/// rather than name one: a leaf that follows several of the values
/// (`/jobs/{id}/cancel` after many ids). Below the values the trie merged
/// in `params` (spelled like ids), so is each of several leaves after one
/// id (`/jobs/<uuid>/pause`, `/jobs/<uuid>/resume`: what is found under an
/// id are its operations and parts); a leaf that follows one id alone, a
/// different leaf after each id, changes with the id (`/tokens/<id>/<its
/// name>`) and may be a value itself, left to the rules that fold values.
/// Below names `fold` took, several leaves after one are its items
/// (`/templates/<type>/<name>`). A leaf whose values are not known is
/// taken for an operation: an id is followed by its operations far more
/// often than by values of its own.
fn leaves_of_values<'a>(
    params: &[&'a RawNode],
    lits: &BTreeMap<&'a str, Vec<&'a RawNode>>,
    fold: &BTreeMap<&str, Rule>,
) -> BTreeSet<&'a str> {
    let folded = (lits.iter()).filter(|(k, _)| fold.contains_key(*k));
    let mut verbs = leaves_under_several(folded.map(|(_, raws)| raws));
    let mut after_ids: BTreeMap<&'a str, BTreeSet<u32>> = BTreeMap::new();
    let merged = (params.iter()).flat_map(|p| &p.literals);
    for (name, child) in merged.filter(|(_, child)| child.is_leaf()) {
        after_ids
            .entry(name)
            .or_default()
            .extend(child.values_before());
    }
    // Only leaves after one id count here: which of its ids a leaf after
    // several recorded depends on the order flows came in (it keeps two).
    let mut words_after: BTreeMap<u32, usize> = BTreeMap::new();
    for id in after_ids
        .values()
        .filter_map(|ids| ids.first().filter(|_| ids.len() == 1))
    {
        *words_after.entry(*id).or_default() += 1;
    }
    let acts = |ids: &BTreeSet<u32>| match ids.first() {
        Some(id) if ids.len() == 1 => words_after[id] > 1,
        _ => true,
    };
    verbs.extend(
        (after_ids.iter())
            .filter(|(_, ids)| acts(ids))
            .map(|(name, _)| *name),
    );
    verbs
}

/// Distinct words after a parameter's values from which on their recurring
/// says they are names ([`words_recur_after`]): two values drawn from a
/// small pool recur together by chance.
const MANY_RECURRING_WORDS: usize = 3;

/// Whether three in four of the words right after the values folded into a
/// parameter (`lits`, each a value's raw nodes), three at least, follow two
/// or more of them: an operation or a sub-resource is found below every
/// value that has it (`/transactions/<key>/confirm`, `.../refunds`,
/// `.../payments` after several keys), while values of a parameter after
/// it recur below several only by chance. Names are expected after such
/// values, as after an id.
fn words_recur_after<'a, 'l>(lits: impl Iterator<Item = &'l Vec<&'a RawNode>>) -> bool
where
    'a: 'l,
{
    let mut followed: BTreeMap<&'a str, usize> = BTreeMap::new();
    for raws in lits {
        let below: BTreeSet<&'a str> = (raws.iter())
            .flat_map(|r| &r.literals)
            .filter(|(name, child)| child.value_kind.is_none() && !is_format_token(name))
            .map(|(name, _)| &**name)
            .collect();
        for name in below {
            *followed.entry(name).or_default() += 1;
        }
    }
    let recurring = followed.values().filter(|n| **n > 1).count();
    followed.len() >= MANY_RECURRING_WORDS && recurring * 4 >= followed.len() * 3
}

/// Names of leaf literals found directly below two or more of `lits`.
fn leaves_under_several<'a, 'l>(
    lits: impl Iterator<Item = &'l Vec<&'a RawNode>>,
) -> BTreeSet<&'a str>
where
    'a: 'l,
{
    let mut seen: BTreeMap<&'a str, usize> = BTreeMap::new();
    for raws in lits {
        let below: BTreeSet<&'a str> = (raws.iter())
            .flat_map(|r| &r.literals)
            .filter(|(_, child)| child.is_leaf())
            .map(|(name, _)| &**name)
            .collect();
        for name in below {
            *seen.entry(name).or_default() += 1;
        }
    }
    seen.into_iter()
        .filter(|(_, n)| *n > 1)
        .map(|(name, _)| name)
        .collect()
}

/// Paths a constant weak value must lead to before it counts as a literal.
const CONSTANT_MIN_PATHS: usize = 3;
/// Weak values each leading to paths of their own are literals while at most
/// one in this many of their paths is shared between two of them.
const OWN_PATHS_SHARED_RATIO: usize = 5;

/// Whether the weak values at one position ([`SegmentKind::is_weak`]: short
/// integers, dates, dotted versions) are literals, and why; `None` when they
/// are values of a parameter.
///
/// A value that never varies while it leads to several different paths is
/// an API generation (`/1/assignments`, `/1/users/{id}`, `/api/3/...`), not
/// an id, unless it follows a collection word (`/users/42/orders`): a person
/// browsing one account sees one id everywhere. Several values are literals
/// when each leads to paths of its own (`/2015-03-31/functions`,
/// `/2018-10-31/layers`): values of one parameter lead to the same paths.
/// Strong values (a UUID, a long number) at the same position make them all
/// values.
fn weak_values_kept<'a>(
    weak: &BTreeMap<&'a str, SegmentKind>,
    lits: &BTreeMap<&'a str, Vec<&'a RawNode>>,
    only_weak: bool,
    parent: Parent,
    parent_name: Option<&str>,
) -> Option<KeptReason> {
    if !only_weak || parent == Parent::Param {
        return None;
    }
    let paths: Vec<Suffixes<'a>> = weak.keys().map(|k| suffixes(&lits[k])).collect();
    let mut seen: BTreeMap<&Vec<Tok<'a>>, usize> = BTreeMap::new();
    for path in paths.iter().flat_map(BTreeMap::keys) {
        *seen.entry(path).or_default() += 1;
    }
    let total = seen.len();
    if weak.len() == 1 {
        let samples: u64 = weak.keys().flat_map(|k| &lits[k]).map(|r| r.count).sum();
        let after_collection = parent_name.is_some_and(collections::is_collection_word);
        return (total >= CONSTANT_MIN_PATHS && !after_collection).then_some(
            KeptReason::Constant {
                samples,
                paths: total,
            },
        );
    }
    let shared = seen.values().filter(|n| **n > 1).count();
    let broad = paths.iter().filter(|p| p.len() >= 2).count();
    (broad >= 2 && shared * OWN_PATHS_SHARED_RATIO <= total).then_some(KeptReason::OwnPaths {
        values: weak.len(),
        shared,
        paths: total,
    })
}

fn strongest<'a>(rules: impl Iterator<Item = &'a Rule>) -> Option<&'a Rule> {
    rules.min_by_key(|r| rank(r))
}

/// How strong a rule's evidence is: lower is stronger.
fn rank(rule: &Rule) -> u8 {
    match rule {
        Rule::Provenance { .. } => 0,
        Rule::Alike { .. } | Rule::SwappedSlots { .. } | Rule::SharedIds { .. } => 1,
        Rule::AnswerAlike => 2,
        Rule::Cardinality { .. }
        | Rule::ReadAlike { .. }
        | Rule::KeyedBy { .. }
        | Rule::SentAlike { .. }
        | Rule::WrittenAlike { .. } => 2,
        Rule::Overflow { .. } | Rule::LikeSiblings { .. } => 3,
        Rule::Segment { .. } => 4,
        Rule::LikeParam { .. } | Rule::WrittenBeside | Rule::Missing | Rule::FileLike { .. } => 5,
        Rule::KnownValue { .. } => 5,
        Rule::FileTree { .. } | Rule::ScopedNames { .. } | Rule::Override { .. } => 6,
        Rule::Uncapitalised { alike } | Rule::FileNames { of: alike, .. } => rank(alike),
        Rule::SiblingItems { .. } => 5,
        Rule::SharedEndings { .. } => 3,
        Rule::KeyValue { .. } => 4,
    }
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Tok<'a> {
    Lit(&'a str),
    Param,
    /// Leaves that vary as values do ([`VaryingLeaves`]), several in one.
    Values,
}

impl Tok<'_> {
    /// Whether this token stands for values rather than a name.
    fn is_value(&self) -> bool {
        matches!(self, Self::Param | Self::Values)
    }
}

/// The paths below a literal (as tokens) that flows ended at, each with
/// the response shapes seen there.
type Suffixes<'a> = BTreeMap<Vec<Tok<'a>>, BTreeSet<AnswerShape>>;

fn suffixes<'a>(raws: &[&'a RawNode]) -> Suffixes<'a> {
    suffixes_with(raws, &VaryingLeaves::default())
}

/// The paths below `raws` ([`suffixes`]), a leaf that `varying` holds
/// written as a value.
fn suffixes_with<'a>(raws: &[&'a RawNode], varying: &VaryingLeaves<'a>) -> Suffixes<'a> {
    let mut out = Suffixes::new();
    walk_suffixes(raws, varying, &mut |path, node| {
        out.entry(path.to_vec())
            .or_default()
            .extend(node.shapes.iter().copied());
        out.len() < MAX_SUFFIXES
    });
    out
}

/// The paths below `raws` as [`suffixes_with`] writes them, each with the
/// calls that ended there.
fn suffix_calls<'a>(
    raws: &[&'a RawNode],
    varying: &VaryingLeaves<'a>,
) -> BTreeMap<Vec<Tok<'a>>, u64> {
    let mut out = BTreeMap::new();
    walk_suffixes(raws, varying, &mut |path, node| {
        *out.entry(path.to_vec()).or_default() += node.terminal;
        out.len() < MAX_SUFFIXES
    });
    out
}

/// Calls `at(path, node)` for each node below `raws` that calls ended at,
/// with its path as tokens (a format suffix adds none: `/latest.json` and
/// `/search.json` are no more alike than `/latest` and `/search`; a leaf
/// `varying` holds is a value). Once `at` says it has no more room, or the
/// paths grow past [`MAX_SUFFIX_DEPTH`], the walk goes no deeper.
fn walk_suffixes<'a>(
    raws: &[&'a RawNode],
    varying: &VaryingLeaves<'a>,
    at: &mut dyn FnMut(&[Tok<'a>], &'a RawNode) -> bool,
) {
    struct Walk<'w, 'a> {
        varying: &'w VaryingLeaves<'a>,
        at: &'w mut dyn FnMut(&[Tok<'a>], &'a RawNode) -> bool,
        prefix: Vec<Tok<'a>>,
        full: bool,
    }
    impl<'a> Walk<'_, 'a> {
        fn end(&mut self, node: &'a RawNode) {
            if node.terminal > 0 && !self.prefix.is_empty() {
                self.full |= !(self.at)(&self.prefix, node);
            }
        }
        fn below(&mut self, node: &'a RawNode) {
            if self.full || self.prefix.len() >= MAX_SUFFIX_DEPTH {
                return;
            }
            for (name, child) in &node.literals {
                if is_format_token(name) {
                    self.end(child);
                    self.below(child);
                    continue;
                }
                let tok = if child.value_kind.is_some() {
                    Tok::Param
                } else if self.varying.holds(&self.prefix, name) {
                    Tok::Values
                } else {
                    Tok::Lit(name)
                };
                self.prefix.push(tok);
                self.end(child);
                self.below(child);
                self.prefix.pop();
            }
            if let Some(p) = &node.param {
                self.prefix.push(Tok::Param);
                self.end(p);
                self.below(p);
                self.prefix.pop();
            }
        }
    }
    let mut walk = Walk {
        varying,
        at,
        prefix: Vec::new(),
        full: false,
    };
    for raw in raws {
        walk.below(raw);
    }
}

/// Leaves below a position's literals that vary as values of one parameter
/// do, each as the path to its parent (below the literal) and its name.
///
/// Values deeper down keep the literals above them apart: `BR` leads to
/// `tango`, `DE` to `quartz`, `GB` to `summit`, and no path below one
/// country code meets a path below another, though each is one name
/// classified in one country. Where the same place below several literals holds three or more
/// leaves that answered alike, most of them found below one of those
/// literals alone, and most calls there brought a leaf not seen before, the
/// leaves are values of one parameter: a value from a pool recurs by chance,
/// while the name of an operation recurs below the siblings that have it
/// and in every call of it. At the top of an API (`top`), where the
/// literals are its resources, leaves below one of them alone that answered
/// alike, three or more, are its ids however often they recur below the
/// others: resources keyed from one pool of words share keys by chance.
/// The paths below the literals are then compared with them as values.
#[derive(Default)]
struct VaryingLeaves<'a>(BTreeSet<(Vec<Tok<'a>>, &'a str)>);

impl<'a> VaryingLeaves<'a> {
    fn holds(&self, prefix: &[Tok<'a>], name: &'a str) -> bool {
        !self.0.is_empty() && self.0.contains(&(prefix.to_vec(), name))
    }
}

fn varying_leaves<'a>(
    candidates: &[&'a str],
    lits: &BTreeMap<&'a str, Vec<&'a RawNode>>,
    top: bool,
    envelope: u128,
    distinctive: u64,
) -> VaryingLeaves<'a> {
    /// The leaves at one place, each with the nodes reached and the
    /// candidate (owner) each was reached below.
    type Place<'a> = BTreeMap<&'a str, Vec<(usize, &'a RawNode)>>;
    fn walk<'a>(
        node: &'a RawNode,
        owner: usize,
        prefix: &mut Vec<Tok<'a>>,
        places: &mut BTreeMap<Vec<Tok<'a>>, Place<'a>>,
    ) {
        if prefix.len() >= MAX_SUFFIX_DEPTH || places.len() >= MAX_SUFFIXES {
            return;
        }
        for (name, child) in &node.literals {
            if is_format_token(name) {
                continue;
            }
            if child.value_kind.is_none() && child.is_leaf() {
                (places.entry(prefix.clone()).or_default())
                    .entry(name)
                    .or_default()
                    .push((owner, child));
                continue;
            }
            prefix.push(match child.value_kind {
                Some(_) => Tok::Param,
                None => Tok::Lit(name),
            });
            walk(child, owner, prefix, places);
            prefix.pop();
        }
        if let Some(p) = &node.param {
            prefix.push(Tok::Param);
            walk(p, owner, prefix, places);
            prefix.pop();
        }
    }
    /// The leaves among `place` (below `owner` alone, or below any) that
    /// answered alike, in groups of [`MANY_ALIKE_ITEMS`] or more.
    fn alike_leaves<'a>(
        place: &Place<'a>,
        owner: Option<usize>,
        envelope: u128,
        distinctive: u64,
    ) -> Vec<&'a str> {
        let raws: BTreeMap<&str, Vec<&RawNode>> = (place.iter())
            .map(|(k, reached)| {
                let below = reached
                    .iter()
                    .filter(|(o, _)| owner.is_none_or(|w| w == *o));
                (*k, below.map(|(_, r)| *r).collect::<Vec<_>>())
            })
            .filter(|(_, r)| !r.is_empty())
            .collect();
        if raws.len() < MANY_ALIKE_ITEMS {
            return Vec::new();
        }
        let names: Vec<&str> = raws.keys().copied().collect();
        let groups = cardinality_groups(
            &names,
            &raws,
            MANY_ALIKE_ITEMS,
            Some(MANY_UNANSWERED_LEAVES),
            envelope,
            distinctive,
            &mut BTreeSet::new(),
        );
        groups.into_iter().flat_map(|(group, _)| group).collect()
    }
    if candidates.len() < 2 {
        return VaryingLeaves::default();
    }
    let mut places = BTreeMap::new();
    for (owner, k) in candidates.iter().enumerate() {
        for raw in &lits[k] {
            walk(raw, owner, &mut Vec::new(), &mut places);
        }
    }
    let mut varying = BTreeSet::new();
    for (prefix, place) in places {
        let owners_of = |reached: &[(usize, &RawNode)]| -> BTreeSet<usize> {
            reached.iter().map(|(o, _)| *o).collect()
        };
        let owners: BTreeSet<usize> = place.values().flat_map(|r| owners_of(r)).collect();
        let alone = place.values().filter(|r| owners_of(r).len() == 1).count();
        let calls: u64 = place.values().flatten().map(|(_, r)| r.count).sum();
        let recurs = alone * 2 < place.len() || (place.len() as u64) * 2 < calls;
        // Right after an id, names of its sub-resources are expected
        // (`/Documents/{id}/ArticleAssociations`, `/TicketNotes/{id}/Attachments`).
        let after_word = !matches!(prefix.last(), Some(Tok::Param));
        if !after_word || owners.len() < 2 || (recurs && !top) {
            continue;
        }
        let names = if recurs {
            // At the top of an API, ids drawn from one pool recur below
            // several of its resources (`/license/cobalt`, `/product/cobalt`),
            // as names of operations would; but below one resource alone,
            // several that answered alike are its ids (operations each
            // answer in their own shape).
            let mut names = BTreeSet::new();
            for owner in &owners {
                names.extend(alike_leaves(&place, Some(*owner), envelope, distinctive));
            }
            names.into_iter().collect()
        } else {
            alike_leaves(&place, None, envelope, distinctive)
        };
        for name in names {
            varying.insert((prefix.clone(), name));
        }
    }
    VaryingLeaves(varying)
}

fn only_values(path: &[Tok<'_>]) -> bool {
    path.iter().all(Tok::is_value)
}

/// The literal anchor and length when two suffixes are alike.
fn alike<'a>(x: &[Tok<'a>], y: &[Tok<'a>]) -> Option<(&'a str, usize)> {
    if x.len() != y.len() || x.is_empty() || x.last() != y.last() {
        return None;
    }
    let mut anchor = None;
    for (a, b) in x.iter().zip(y) {
        match (a, b) {
            (Tok::Lit(p), Tok::Lit(q)) if p == q => anchor = Some(*p),
            (Tok::Lit(_), Tok::Lit(_)) | (Tok::Param, Tok::Param) => {}
            // Leaves that vary as values do anchor nothing: they make two
            // paths comparable by how they answered, not by where they lead
            // (`/msg/coap/get/args` and `/msg/ipmi/get/config` are two
            // operations that each call made once or twice).
            _ => return None,
        }
    }
    anchor.map(|a| (a, x.len()))
}

struct UnionFind(Vec<usize>);

impl UnionFind {
    fn new(n: usize) -> Self {
        Self((0..n).collect())
    }
    fn find(&mut self, i: usize) -> usize {
        let mut r = i;
        while self.0[r] != r {
            r = self.0[r];
        }
        self.0[i] = r;
        r
    }
    fn union(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            self.0[ra.max(rb)] = ra.min(rb);
        }
    }
    fn groups(&mut self, min: usize) -> Vec<Vec<usize>> {
        let mut by_root: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for i in 0..self.0.len() {
            let root = self.find(i);
            by_root.entry(root).or_default().push(i);
        }
        by_root.into_values().filter(|g| g.len() >= min).collect()
    }
}

/// The root, or a word that names no collection (`/mlflow/...`,
/// `/transfer/...`): what sits below is more likely a namespace of names
/// than values of a parameter.
fn is_namespace(parent: Parent, parent_name: Option<&str>) -> bool {
    match parent {
        Parent::Root => true,
        Parent::Literal => !parent_name.is_some_and(collections::is_collection_word),
        Parent::Param => false,
    }
}

/// What the values of a parameter lead to, to recognise a literal beside it
/// that behaves the same (`/users/me/tasks` beside `/users/{userId}/tasks`,
/// `/functions/resize/url` beside `/functions/{function}/url`).
struct Beside<'a> {
    paths: Suffixes<'a>,
    shapes: Vec<AnswerShape>,
    /// The API's envelope ([`envelope_leaves`]), left out of the comparison.
    envelope: u128,
    /// Whether the flows that ended at the values all wrote them
    /// ([`only_written`]).
    written: bool,
    /// The methods of the flows that ended at the values ([`ended_with`]).
    methods: u8,
}

impl<'a> Beside<'a> {
    fn of(params: &[&'a RawNode], envelope: u128) -> Self {
        Self {
            paths: suffixes(params),
            shapes: answers_beyond(params, envelope),
            envelope,
            written: only_written(params),
            methods: ended_with(params, |node| node.methods),
        }
    }

    /// The rule that folds a literal into the parameter, if it behaves like
    /// it: at least half of the paths below it are paths below the parameter,
    /// or, for a leaf, it answered as the values do: in one of their
    /// shapes, or alike one with no field the values never showed (`/users/me`
    /// that adds `email` to a user is a view of its own), or, `lenient`,
    /// alike one.
    fn takes(&self, raws: &[&RawNode], own: &Suffixes<'_>, lenient: bool) -> Option<Rule> {
        if own.is_empty() {
            let shapes = answers_beyond(raws, self.envelope);
            let leaf = raws.iter().all(|r| r.is_leaf());
            if leaf && only_missing(raws) {
                return Some(Rule::Missing);
            }
            // With no answer on either side, a leaf written to (as the
            // values were) is one of the resources they name, though it
            // was read too: a read that answered nothing beyond the
            // envelope (`[]`) tells no operation apart.
            if shapes.is_empty() && self.shapes.is_empty() && self.written && written_to(raws) {
                return leaf.then_some(Rule::WrittenBeside);
            }
            // A leaf only written to, answering nothing, by methods the
            // values were written with too, is one more of them, whatever
            // the values answered when read (`DELETE /numbers/nebula` beside
            // `/numbers/{number}`, read, replaced and deleted).
            let methods = ended_with(raws, |node| node.methods);
            if shapes.is_empty()
                && only_written(raws)
                && methods & !(self.methods & WRITES_RESOURCE) == 0
            {
                return leaf.then_some(Rule::WrittenBeside);
            }
            let shown = AnswerShape::union_of(&self.shapes);
            let like_values = (shapes.iter()).any(|shape| {
                (self.shapes.iter()).any(|value| {
                    value.fingerprint() == shape.fingerprint()
                        || (value.alike(shape) && (lenient || shape.within(shown)))
                })
            });
            return (leaf && like_values).then_some(Rule::LikeParam { shared_paths: 0 });
        }
        let shared = own.keys().filter(|p| self.paths.contains_key(*p)).count();
        (shared > 0 && shared * 2 >= own.len()).then_some(Rule::LikeParam {
            shared_paths: shared,
        })
    }
}

/// How two literals' paths below met: the literal anchoring the best pair
/// of alike paths (none when they met only by answering alike), its length,
/// and how many of the first literal's paths met one of the second's.
struct Meeting<'a> {
    anchor: Option<&'a str>,
    len: usize,
    paths: usize,
    /// Whether a path that met ends in leaves that vary as values do: each
    /// such path stands for several.
    varied: bool,
}

/// Whether the paths below two literals (`x`, `y`) meet, and how.
///
/// Two paths meet when they end alike ([`alike`]): at the same last token,
/// anchored by a shared literal. Outside a namespace they also meet when
/// they have the same length and answered in a shared shape: values of one
/// parameter lead to one operation however its deeper values vary
/// (`/flags/web/dark-mode/targets/staging` and
/// `/flags/mobile/pricing/targets/production`), and names of resources
/// answer each in its own shape. In a namespace they must answer alike and
/// be anchored too: names of operations there may lead to alike paths
/// (`experiments/search`, `runs/search`) but list different things, and
/// many answer in one bare envelope (`{"request_id": ...}`); only paths of
/// values alone (`/by-external/github/{id}`, `/by-external/google/{id}`)
/// meet there by answering alike.
fn meeting<'a>(x: &Suffixes<'a>, y: &Suffixes<'a>, namespace: bool) -> Option<Meeting<'a>> {
    // Equal shapes only: paths below names of resources that share their
    // operations answer in kindred envelopes (`/Tickets/query`,
    // `/Contacts/query`); only equal answers say the names are values.
    let answer_alike = |xs: &BTreeSet<AnswerShape>, ys: &BTreeSet<AnswerShape>| {
        xs.iter()
            .any(|x| ys.iter().any(|y| x.fingerprint() == y.fingerprint()))
    };
    let mut best: Option<(Option<&'a str>, usize)> = None;
    let mut paths = 0;
    let mut varied = false;
    for (xp, xs) in x {
        let mut met = false;
        for (yp, ys) in y {
            let anchored = alike(xp, yp);
            let m = match anchored {
                Some((anchor, len))
                    if !namespace || xs.is_empty() || ys.is_empty() || answer_alike(xs, ys) =>
                {
                    Some((Some(anchor), len))
                }
                _ if (!namespace || (only_values(xp) && only_values(yp)))
                    && xp.len() == yp.len()
                    && answer_alike(xs, ys) =>
                {
                    Some((None, xp.len()))
                }
                _ => None,
            };
            let Some(m) = m else { continue };
            met = true;
            varied |= xp.last() == Some(&Tok::Values);
            let key = |(a, len): (Option<&'a str>, usize)| (len, a.is_some(), std::cmp::Reverse(a));
            if best.is_none_or(|b| key(m) > key(b)) {
                best = Some(m);
            }
        }
        paths += usize::from(met);
    }
    best.map(|(anchor, len)| Meeting {
        anchor,
        len,
        paths,
        varied,
    })
}

/// The members of an alike group in a namespace that are interchangeable,
/// as values of one parameter are: most of the paths below each one meet a
/// path below another member, and none leads on its own, again and again,
/// to a name the others never lead to. A member whose paths mostly lead
/// where no other member's do is a name (`/api/dcim/{cables,racks,sites,...}`
/// beside `/api/virtualization/interfaces`, which share only `interfaces`),
/// and so is one below which calls went on to a word found below no other
/// member (the first name after it and its ids, taken [`OWN_PATH_CALLS`]
/// times or more; in a namespace, `namespace`, all such words together),
/// when calls landing below it as often as the rest
/// of its calls do would all have landed there by chance at most
/// [`OWN_WORD_CHANCE`] of the time (`/annotation_layer/{pk}/annotation/{id}`,
/// six calls, beside `/report/{pk}/log/{id}` and `/css_template/{pk}`;
/// `intent` and `sentiment` below `language`, six calls each, beside
/// `vision`, whose `ocr` and `feedback` are its own): values of one
/// parameter share what follows them, so a name the calls found below one
/// value alone, time after time, is that word's own. A value most calls go
/// to can have a path of its own by chance; its share of the calls says how
/// likely that was. Such a member is recorded in `kept`, and the others are
/// judged again without it. Values are alike by what follows them, names by
/// what sets them apart; a name may share a child or two with another (both
/// have `interfaces`) without being one of its kind. `calls` holds, for each
/// candidate, the calls that ended at each path below it ([`suffix_calls`]).
fn interchangeable<'a>(
    mut group: Vec<&'a str>,
    candidates: &[&'a str],
    below: &[Suffixes<'a>],
    calls: &[BTreeMap<Vec<Tok<'a>>, u64>],
    namespace: bool,
    kept: &mut BTreeMap<&'a str, KeptReason>,
) -> Vec<&'a str> {
    let index = |k: &str| candidates.iter().position(|c| *c == k);
    let below_of = |k: &str| index(k).map(|i| &below[i]);
    let calls_of = |k: &str| index(k).and_then(|i| calls.get(i));
    let total = |k: &str| calls_of(k).map_or(0, |c| c.values().sum::<u64>());
    loop {
        let mut names = Vec::new();
        for k in &group {
            let Some(own) = below_of(k).filter(|own| !own.is_empty()) else {
                continue;
            };
            let mut others: Suffixes<'a> = BTreeMap::new();
            for other in group.iter().filter(|o| *o != k) {
                for (path, shapes) in below_of(other).into_iter().flatten() {
                    others.entry(path.clone()).or_default().extend(shapes);
                }
            }
            let met = meeting(own, &others, true).map_or(0, |m| m.paths);
            if met * 2 < own.len() {
                names.push((
                    *k,
                    KeptReason::OwnSubtree {
                        met,
                        paths: own.len(),
                    },
                ));
                continue;
            }
            let others_called: u64 = group.iter().filter(|o| *o != k).map(|o| total(o)).sum();
            let others_words: BTreeSet<&str> = (group.iter())
                .filter(|o| *o != k)
                .flat_map(|o| calls_of(o).into_iter().flatten())
                .filter_map(|(path, _)| first_word(path))
                .collect();
            let mut own_words: BTreeMap<&str, (u64, &[Tok<'a>])> = BTreeMap::new();
            for (path, n) in calls_of(k).into_iter().flatten() {
                if let Some(word) = first_word(path).filter(|w| !others_words.contains(w)) {
                    let at = path
                        .iter()
                        .position(|tok| *tok == Tok::Lit(word))
                        .unwrap_or(0);
                    let seen = own_words.entry(word).or_insert((0, &path[..=at]));
                    seen.0 += n;
                }
            }
            // Were the words values' paths, each call would land below this
            // member as often as the other calls do: all `n` of them by
            // chance `share^n` of the time.
            let chance = |n: u64| {
                let rest = total(k).saturating_sub(n);
                let share = rest as f64 / (rest + others_called).max(1) as f64;
                share.powi(i32::try_from(n).unwrap_or(i32::MAX))
            };
            // In a namespace, where names are expected, the words taken
            // again and again below this member alone count together: under
            // values each of their calls was one more draw that landed here.
            // After an id, where values are expected and one of them may be
            // explored far more than the rest, one word must be evidence
            // enough on its own.
            let mut own: Vec<(u64, &[Tok<'a>])> = (own_words.into_values())
                .filter(|(n, _)| *n >= OWN_PATH_CALLS)
                .collect();
            if !namespace {
                own.sort_by_key(|(n, _)| std::cmp::Reverse(*n));
                own.truncate(1);
            }
            let n: u64 = own.iter().map(|(n, _)| n).sum();
            if n > 0 && chance(n) <= OWN_WORD_CHANCE {
                let paths = own.iter().map(|(_, path)| path_text(path)).collect();
                names.push((*k, KeptReason::OwnPath { paths, calls: n }));
            }
        }
        if names.is_empty() {
            return group;
        }
        for (k, reason) in names {
            group.retain(|g| *g != k);
            kept.insert(k, reason);
        }
    }
}

/// Calls to one path below one member of an alike group, and to no other
/// member's, from which on the path is that member's own
/// ([`interchangeable`]).
const OWN_PATH_CALLS: u64 = 3;
/// How likely, at most, the calls that took a word below one member of an
/// alike group alone all landed there by chance, were the members values
/// ([`interchangeable`]): one in two hundred.
const OWN_WORD_CHANCE: f64 = 0.005;

/// The first name on a path below a literal, when only ids come before it
/// (`annotation` on `{}/annotation/{}`).
fn first_word<'a>(path: &[Tok<'a>]) -> Option<&'a str> {
    match path.iter().find(|tok| **tok != Tok::Param)? {
        Tok::Lit(word) => Some(word),
        Tok::Param | Tok::Values => None,
    }
}

/// A path below a literal as tokens, written as a template (`{}/annotation/{}`).
fn path_text(path: &[Tok<'_>]) -> String {
    let parts: Vec<&str> = (path.iter())
        .map(|tok| match tok {
            Tok::Lit(name) => name,
            Tok::Param | Tok::Values => "{}",
        })
        .collect();
    parts.join("/")
}

/// The answers of flows that ended at `raws` ([`RawNode::answer_shapes`]),
/// each without the API's envelope ([`envelope_leaves`]).
fn answers_beyond(raws: &[&RawNode], envelope: u128) -> Vec<AnswerShape> {
    (raws.iter().flat_map(|r| r.answer_shapes()))
        .map(|shape| shape.beyond(envelope))
        .collect()
}

/// The words of an alike group followed by an id that another word of the
/// group is followed by too, each with one such id (`ids` holds each
/// candidate's [`collections::distinctive_ids`]). Such an id names one
/// thing wherever it appears (`61615302` after
/// `brands` and after `series`), so the ids are not each word's own: the
/// words qualify one pool of ids, as values of a parameter (a kind) do.
fn shared_ids<'a>(
    group: &[&'a str],
    candidates: &[&'a str],
    ids: &[BTreeSet<&'a str>],
) -> Vec<(&'a str, &'a str)> {
    let ids_of = |k: &str| {
        let i = candidates.iter().position(|c| *c == k);
        i.map(|i| &ids[i])
    };
    (group.iter())
        .filter_map(|k| {
            let shared = ids_of(k).into_iter().flatten().find(|id| {
                (group.iter().filter(|o| *o != k))
                    .any(|o| ids_of(o).is_some_and(|theirs| theirs.contains(*id)))
            });
            shared.map(|id| (*k, *id))
        })
        .collect()
}

/// Groups of `open` literals whose paths below (`sufs`, in the same order)
/// meet ([`meeting`]), each with its anchor (`None` when the group met by
/// answering alike). `answers` are the shapes each literal answered itself.
fn alike_groups<'a>(
    open: &[&'a str],
    sufs: &[Suffixes<'a>],
    answers: &[Vec<AnswerShape>],
    ids: &[BTreeSet<&'a str>],
    parent: Parent,
    namespace: bool,
) -> Vec<(Vec<&'a str>, Option<&'a str>)> {
    let (mut strong, mut all) = (UnionFind::new(open.len()), UnionFind::new(open.len()));
    let mut anchors: BTreeMap<usize, Option<&'a str>> = BTreeMap::new();
    for i in 0..open.len() {
        for j in i + 1..open.len() {
            let Some(m) = meeting(&sufs[i], &sufs[j], namespace) else {
                continue;
            };
            all.union(i, j);
            // One alike path one segment long is weak evidence (`/a/items`,
            // `/b/items`); a longer one, or several, or any below a
            // parameter, is strong, and so is one where the two literals
            // also answered alike themselves (`/slug/aws/documents` and
            // `/slug/azure/documents`, each slug answering as a block type),
            // or one through an id found below both ([`shared_ids`]).
            let answered_alike = any_alike(&answers[i], &answers[j]);
            if m.len >= 2
                || m.paths + usize::from(answered_alike) >= 2
                || m.varied
                || parent == Parent::Param
                || !ids[i].is_disjoint(&ids[j])
            {
                strong.union(i, j);
            }
            for k in [i, j] {
                let a = anchors.entry(k).or_insert(m.anchor);
                if a.is_none() {
                    *a = m.anchor;
                }
            }
        }
    }
    let min_strong = if parent == Parent::Root { 3 } else { 2 };
    let mut chosen: BTreeSet<Vec<usize>> = strong.groups(min_strong).into_iter().collect();
    for g in all.groups(3) {
        if !chosen
            .iter()
            .any(|c| c.iter().all(|i| g.contains(i)) && c.len() == g.len())
        {
            chosen.retain(|c| !c.iter().all(|i| g.contains(i)));
            chosen.insert(g);
        }
    }
    chosen
        .into_iter()
        .map(|g| {
            let anchor = g.iter().find_map(|i| anchors.get(i).copied().flatten());
            (g.into_iter().map(|i| open[i]).collect(), anchor)
        })
        .collect()
}

/// Leaf literals of `open` that answered in a shared shape, in groups of at
/// least `threshold`. Leaves with no response to compare group together in
/// groups of at least `unanswered` (`None`: never): without answers only
/// many distinct leaves say "values".
fn cardinality_groups<'a>(
    open: &[&'a str],
    lits: &BTreeMap<&'a str, Vec<&'a RawNode>>,
    threshold: usize,
    unanswered: Option<usize>,
    envelope: u128,
    distinctive: u64,
    own_names: &mut BTreeSet<&'a str>,
) -> Vec<(Vec<&'a str>, Rule)> {
    let leaves: Vec<&'a str> = open
        .iter()
        .copied()
        .filter(|k| lits[k].iter().all(|r| r.is_leaf()))
        .collect();
    let mut uf = UnionFind::new(leaves.len());
    let answers: Vec<Vec<AnswerShape>> = (leaves.iter())
        .map(|k| answers_beyond(&lits[k], envelope))
        .collect();
    let silent: Vec<bool> = answers.iter().map(Vec::is_empty).collect();
    let names: Vec<u64> = (leaves.iter())
        .map(|k| lits[k].iter().fold(0, |bits, r| bits | r.query) & distinctive)
        .collect();
    let written: Vec<bool> = leaves.iter().map(|k| only_written(&lits[k])).collect();
    let sent: Vec<SentNames> = leaves.iter().map(|k| SentNames::of(&lits[k])).collect();
    let mut apart = vec![false; leaves.len() * leaves.len()];
    for i in 0..leaves.len() {
        for j in i + 1..leaves.len() {
            let alike = match (silent[i], silent[j]) {
                (false, false) => any_alike(&answers[i], &answers[j]),
                (true, true) => {
                    unanswered.is_some() || names[i] & names[j] != 0 || written[i] && written[j]
                }
                _ => false,
            };
            if !alike {
                continue;
            }
            if sent[i].requires_what(&sent[j]) || sent[j].requires_what(&sent[i]) {
                apart[i * leaves.len() + j] = true;
                apart[j * leaves.len() + i] = true;
                own_names.insert(leaves[i]);
                own_names.insert(leaves[j]);
            } else {
                uf.union(i, j);
            }
        }
    }
    // Unanswered leaves group only with each other, so a group is either
    // all answered or all not. With nothing answered, calls of one
    // operation show in what they were sent: a query parameter name few
    // places were sent, sent to every leaf of the group (`/Streets/{x}?postcode=`).
    let sent_alike = |g: &[usize]| g.iter().fold(distinctive, |bits, i| bits & names[*i]) != 0;
    let groups = (uf.groups(threshold.max(2)).into_iter())
        .map(|g| without_apart(g, |i, j| apart[i * leaves.len() + j]))
        .filter(|g| g.len() >= threshold.max(2));
    let groups: Vec<(Vec<&str>, Rule)> = groups
        .filter_map(|g| {
            let distinct = g.len();
            let rule = if !silent[g[0]] || unanswered.is_some_and(|min| distinct >= min) {
                Rule::Cardinality { distinct }
            } else if sent_alike(&g) {
                Rule::SentAlike { distinct }
            } else if g.iter().all(|i| written[*i]) {
                Rule::WrittenAlike { distinct }
            } else {
                return None;
            };
            Some((g.into_iter().map(|i| leaves[i]).collect(), rule))
        })
        .collect();
    own_names.retain(|k| !groups.iter().any(|(g, _)| g.contains(k)));
    groups
}

/// `group` less the words only posted to, recorded in `kept` as actions,
/// where the rest of the group was used (read, written) and never posted
/// to: POST creates in a collection or runs an action, and an item is
/// read, replaced, patched or deleted (`/users/login` beside users read,
/// put and deleted), however alike they answered.
fn without_posted_actions<'a>(
    group: Vec<&'a str>,
    lits: &BTreeMap<&'a str, Vec<&'a RawNode>>,
    kept: &mut BTreeMap<&'a str, KeptReason>,
) -> Vec<&'a str> {
    let methods = |k: &str| ended_with(&lits[k], |node| node.methods);
    let used = (group.iter().map(|k| methods(k)))
        .filter(|m| *m != POSTED)
        .fold(0, |bits, m| bits | m);
    if used == 0 || used & POSTED != 0 {
        return group;
    }
    let (actions, items): (Vec<&str>, Vec<&str>) =
        group.into_iter().partition(|k| methods(k) == POSTED);
    for k in actions {
        kept.insert(k, KeptReason::OnlyPosted);
    }
    items
}

/// `group` less the members [`SentNames::requires_what`] sets apart from
/// another member (joined through others that answered alike both), the
/// member apart from most others first.
fn without_apart(mut group: Vec<usize>, apart: impl Fn(usize, usize) -> bool) -> Vec<usize> {
    loop {
        let worst = (group.iter().enumerate())
            .map(|(at, &i)| (group.iter().filter(|&&j| apart(i, j)).count(), at))
            .max();
        match worst {
            Some((n, at)) if n > 0 => {
                group.remove(at);
            }
            _ => return group,
        }
    }
}

/// How many times a group of alike leaves the names beside it in a
/// namespace must number before the group is read as names too: values of a
/// parameter are the most of their position, and a group outnumbered two to
/// one by names is a third of it at most.
const NAMES_AROUND_FEW: usize = 2;

/// The query parameter names the calls that ended at some raws sent
/// ([`RawNode::query`], [`RawNode::always`]), and how many calls there were.
struct SentNames {
    always: u64,
    any: u64,
    calls: u64,
}

impl SentNames {
    fn of(raws: &[&RawNode]) -> SentNames {
        let mut sent = SentNames {
            always: u64::MAX,
            any: 0,
            calls: 0,
        };
        for node in ended_at(raws).filter(|node| node.terminal > 0) {
            sent.always &= node.always;
            sent.any |= node.query;
            sent.calls += node.terminal;
        }
        if sent.calls == 0 {
            sent.always = 0;
        }
        sent
    }

    /// Whether these calls always sent a query parameter (an operation's
    /// required one) that `other`'s calls never sent: calls of one
    /// operation carry its required parameters every time, so the two are
    /// different operations, however alike they answered
    /// (`/analysis/compare?faceHashes=` beside `/analysis/listLatest`).
    fn requires_what(&self, other: &SentNames) -> bool {
        self.calls >= REQUIRED_AFTER_CALLS
            && other.calls >= NEVER_AFTER_CALLS
            && self.calls + other.calls >= REQUIRED_QUERY_CALLS
            && self.always & !other.any != 0
    }
}

enum Step<'v, 'p> {
    /// A literal segment, as written in the path (a format suffix included).
    Lit(&'p str, Option<&'v KeptReason>),
    /// A parameter, with the value it had (without a format suffix).
    Param(Option<&'v ViewParam>, Option<SegmentKind>, &'p str),
    /// The rest of the path as one parameter, with its value.
    Rest(&'v ViewRest, &'p str),
}

/// The decided steps of `path`, one per segment, with the format suffix
/// that ends a parameter's segment (`.json` in `/t/27176.json`).
struct Walk<'v, 'p> {
    steps: Vec<Step<'v, 'p>>,
    suffixes: Vec<Option<&'p str>>,
    /// The fixed name before each parameter in its segment (`blacklist.`;
    /// empty for most).
    prefixes: Vec<&'v str>,
    trailing: bool,
}

fn walk<'v, 'p>(view: &'v ViewNode, path: &'p str) -> Walk<'v, 'p> {
    let (segments, trailing) = split_path(path);
    let mut segments = segments.peekable();
    let mut node = Some(view);
    let (mut steps, mut suffixes, mut prefixes) = (Vec::new(), Vec::new(), Vec::new());
    while let Some(segment) = segments.next() {
        prefixes.resize(steps.len(), "");
        if let Some(rest) = node.and_then(|n| n.rest.as_deref()) {
            // `segment` lies inside `path`: the rest starts where it does.
            let start = segment.as_ptr() as usize - path.as_ptr() as usize;
            let tail = &path[start..];
            let tail = tail.strip_suffix('/').unwrap_or(tail);
            // An operation on the file follows its name (`a.ipynb/checkpoints`),
            // and what follows the operation is walked in its own view.
            let parts: Vec<&str> = tail.split('/').collect();
            // Where the value ends: after a file's name, or after a name and its scope.
            let value_ends = |i: usize| match rest.rule {
                Rule::ScopedNames { .. } => i == 1 + usize::from(is_scope(parts[0])),
                _ => file_extension(parts[i - 1]).is_some(),
            };
            let operation =
                (1..parts.len()).find(|i| rest.after.contains_key(parts[*i]) && value_ends(*i));
            let Some(at) = operation else {
                steps.push(Step::Rest(rest, tail));
                suffixes.push(None);
                break;
            };
            let file_len = parts[..at].iter().map(|p| p.len() + 1).sum::<usize>() - 1;
            let op = parts[at];
            steps.push(Step::Rest(rest, &tail[..file_len]));
            steps.push(Step::Lit(op, None));
            suffixes.extend([None, None]);
            for _ in 0..at {
                segments.next();
            }
            node = rest.after.get(op);
            continue;
        }
        let (stem, suffix) = split_suffix(segment, segments.peek().is_none());
        if let Some(n) = node
            && !n.prefixed.is_empty()
            && !n.literals.contains_key(stem)
            && let Some((prefix, p)) = prefixed_param(n, segment)
        {
            node = Some(&p.node);
            steps.push(Step::Param(Some(p), None, &segment[prefix.len()..]));
            suffixes.push(None);
            prefixes.push(prefix);
            continue;
        }
        let kind = classify_segment(stem);
        let here = node.take();
        let step = match (here, kind) {
            (Some(n), Some(_)) if let Some(child) = n.literals.get(stem) => {
                node = Some(child);
                Step::Lit(segment, child.kept.as_ref())
            }
            (Some(n), Some(kind)) => match &n.param {
                Some(p) => {
                    node = Some(&p.node);
                    Step::Param(Some(p), Some(kind), stem)
                }
                None => Step::Param(None, Some(kind), stem),
            },
            (None, Some(kind)) => Step::Param(None, Some(kind), stem),
            (Some(n), None) => match (n.literals.get(stem), &n.param) {
                (Some(child), _) => {
                    node = Some(child);
                    Step::Lit(segment, child.kept.as_ref())
                }
                (None, Some(p)) if p.folded => {
                    node = Some(&p.node);
                    Step::Param(Some(p), None, stem)
                }
                _ => Step::Lit(segment, None),
            },
            (None, None) => Step::Lit(segment, None),
        };
        if let Some(suffix) = suffix {
            node = node.and_then(|n| n.literals.get(&*suffix.token()));
        }
        let suffix = match &step {
            // A file's extension is part of its name, not a suffix.
            Step::Param(Some(p), ..)
                if matches!(p.rule, Rule::FileNames { .. })
                    && matches!(suffix, Some(SegmentSuffix::Format(_))) =>
            {
                None
            }
            Step::Param(..) => suffix.map(SegmentSuffix::text),
            Step::Lit(..) | Step::Rest(..) => None,
        };
        steps.push(step);
        suffixes.push(suffix);
    }
    prefixes.resize(steps.len(), "");
    Walk {
        steps,
        suffixes,
        prefixes,
        trailing,
    }
}

/// The parameter of `node` that `segment` fills after a fixed name, with
/// that name: the longest that begins it and leaves a value.
fn prefixed_param<'v>(node: &'v ViewNode, segment: &str) -> Option<(&'v str, &'v ViewParam)> {
    (node.prefixed.iter())
        .filter(|(prefix, _)| segment.len() > prefix.len() && segment.starts_with(&***prefix))
        .max_by_key(|(prefix, _)| prefix.len())
        .map(|(prefix, p)| (&**prefix, p))
}

fn names(walked: &Walk<'_, '_>) -> Vec<String> {
    let inputs: Vec<NameInput<'_>> = (walked.steps.iter())
        .zip(&walked.prefixes)
        .map(|(s, prefix)| match s {
            Step::Lit(text, _) => NameInput::Literal(text),
            // A key names its value; a dotted ending is a format.
            Step::Param(..) if !prefix.is_empty() => NameInput::Param {
                kind: None,
                hint: Some(match prefix.strip_suffix('=') {
                    Some(key) => key,
                    None => "format",
                }),
            },
            // An id before a format (`2574.xml`) is named as its spelling says.
            Step::Param(Some(p), _, value)
                if p.ids_end
                    && let Some((id, _)) = value.rsplit_once('.') =>
            {
                NameInput::Param {
                    kind: classify_segment(id),
                    hint: None,
                }
            }
            Step::Param(p, kind, _) => {
                // A parameter whose values are slugs is named like one (`{product}`);
                // one whose values are classified keeps their kind's name
                // (`{userId}`), also when a literal like `me` joined them.
                let slugs = |rule: &Rule| {
                    !matches!(
                        rule,
                        Rule::Segment { .. } | Rule::LikeParam { .. } | Rule::WrittenBeside
                    )
                };
                let folded = p.is_some_and(|p| p.folded && slugs(&p.rule));
                let hint = p
                    .and_then(|p| p.origin.as_ref())
                    .filter(|o| o.use_name)
                    .map(|o| o.name.as_str());
                let kind = if folded {
                    None
                } else {
                    p.and_then(|p| p.kinds.first().copied()).or(*kind)
                };
                // Pairs too few to tell from a list of two are named as one.
                let kind = match kind {
                    Some(SegmentKind::Pair) if !p.is_some_and(holds_pairs) => {
                        Some(SegmentKind::List)
                    }
                    kind => kind,
                };
                NameInput::Param { kind, hint }
            }
            // A file's path is a path; a scoped name is named as any value.
            Step::Rest(rest, _) => NameInput::Param {
                kind: None,
                hint: matches!(rest.rule, Rule::FileTree { .. }).then_some("path"),
            },
        })
        .collect();
    name_params(&inputs)
}

/// Distinct pairs needed before a position of pairs is two parameters: one
/// or two pairs are as likely a list that held two ids each time.
pub(super) const MANY_PAIRS: usize = 3;

/// Whether every value of the parameter was a pair of numbers
/// ([`SegmentKind::Pair`]), and enough distinct ones were seen to tell a
/// point from a list: `/stops/location/{latitude},{longitude}`.
fn holds_pairs(p: &ViewParam) -> bool {
    p.kinds == [SegmentKind::Pair] && !p.folded && p.values.len() >= MANY_PAIRS
}

/// The names of the two numbers of a pair at a parameter first named `name`:
/// `latitude` and `longitude` where each first number is within ±90, each
/// second within ±180 and some have a fraction (coordinates as maps write
/// them), else `name` numbered.
fn pair_names(name: String, p: &ViewParam) -> (String, Vec<JoinedParam>) {
    let numbers: Vec<(f64, f64)> = (p.values.iter())
        .filter_map(|v| {
            let (x, y) = v.split_once(',')?;
            Some((x.parse().ok()?, y.parse().ok()?))
        })
        .collect();
    let coordinates = numbers.len() == p.values.len()
        && numbers
            .iter()
            .all(|(x, y)| x.abs() <= 90.0 && y.abs() <= 180.0)
        && p.values.iter().any(|v| v.contains('.'));
    let (first, second) = if coordinates {
        ("latitude".to_string(), "longitude".to_string())
    } else {
        (format!("{name}1"), format!("{name}2"))
    };
    let joined = vec![JoinedParam {
        separator: ",".to_string(),
        name: second,
    }];
    (first, joined)
}

fn evidence(p: Option<&ViewParam>, kind: Option<SegmentKind>, value: &str) -> Evidence {
    match p {
        Some(p) => Evidence {
            rule: p.rule.clone(),
            samples: p.samples,
            values: p.values.clone(),
            kinds: p.kinds.clone(),
        },
        None => Evidence {
            rule: Rule::Segment {
                kind: kind.unwrap_or(SegmentKind::Integer),
            },
            samples: 0,
            values: vec![value.to_string()],
            kinds: kind.into_iter().collect(),
        },
    }
}

pub(crate) fn template(view: &ViewNode, path: &str) -> PathTemplate {
    let walked = walk(view, path);
    let names = names(&walked);
    let format_name = match names.iter().any(|n| n == "format") {
        true => "format2",
        false => "format",
    };
    let mut names = names.into_iter();
    let segments = (walked.steps.iter())
        .zip(&walked.suffixes)
        .zip(&walked.prefixes)
        .map(|((s, suffix), prefix)| match s {
            Step::Lit(text, _) => Segment::Literal(text.to_string()),
            Step::Param(p, kind, value) => {
                let name = names.next().unwrap_or_default();
                let (name, joined) = match p {
                    Some(p) if holds_pairs(p) => pair_names(name, p),
                    // `2574.xml` where ids end in a format.
                    Some(p) if p.ends_in_format(value) => {
                        let format = JoinedParam {
                            separator: ".".to_string(),
                            name: format_name.to_string(),
                        };
                        (name, vec![format])
                    }
                    _ => (name, Vec::new()),
                };
                Segment::Param(PathParam {
                    name,
                    evidence: evidence(*p, *kind, value),
                    prefix: prefix.to_string(),
                    suffix: suffix.unwrap_or_default().to_string(),
                    rest: false,
                    joined,
                })
            }
            Step::Rest(rest, _) => Segment::Param(PathParam {
                name: names.next().unwrap_or_default(),
                evidence: Evidence {
                    rule: rest.rule.clone(),
                    samples: rest.samples,
                    values: rest.values.clone(),
                    kinds: Vec::new(),
                },
                prefix: String::new(),
                suffix: String::new(),
                rest: true,
                joined: Vec::new(),
            }),
        })
        .collect();
    PathTemplate {
        segments,
        trailing_slash: walked.trailing,
    }
}

pub(crate) fn shape_key(view: &ViewNode, path: &str) -> String {
    let mut key = String::with_capacity(path.len());
    shape_key_into(view, path, &mut key);
    key
}

/// [`shape_key`] written into `key` (cleared first), reusing its allocation.
pub(crate) fn shape_key_into(view: &ViewNode, path: &str, key: &mut String) {
    key.clear();
    let walked = walk(view, path);
    let steps = (walked.steps.iter()).zip(&walked.suffixes);
    for ((step, suffix), prefix) in steps.zip(&walked.prefixes) {
        key.push('/');
        match step {
            Step::Lit(text, _) => key.push_str(text),
            Step::Param(p, _, value) => {
                key.push_str(prefix);
                key.push('\u{1}');
                if p.is_some_and(|p| p.ends_in_format(value)) {
                    key.push_str(".\u{1}");
                }
                key.push_str(suffix.unwrap_or_default());
            }
            Step::Rest(..) => key.push_str("\u{1}*"),
        }
    }
    if walked.trailing || walked.steps.is_empty() {
        key.push('/');
    }
}

pub(crate) fn explain(view: &ViewNode, path: &str) -> Explanation {
    let template = template(view, path);
    let walked = walk(view, path);
    let decisions = (walked.steps.iter())
        .zip(&template.segments)
        .enumerate()
        .map(|(position, (step, segment))| match (step, segment) {
            (Step::Lit(text, reason), _) => Decision::Literal {
                position,
                value: text.to_string(),
                reason: reason
                    .cloned()
                    .unwrap_or(KeptReason::OwnShape { siblings: 1 }),
            },
            (Step::Param(..) | Step::Rest(..), Segment::Param(p)) => {
                let mut evidence = p.evidence.clone();
                // A value folded in alone is one by its own rule.
                if let Step::Param(Some(param), _, value) = step
                    && let Some((_, rule)) = param.alone.iter().find(|(v, _)| **v == **value)
                {
                    evidence.rule = rule.clone();
                }
                Decision::Param {
                    position,
                    name: p.name.clone(),
                    evidence,
                }
            }
            (Step::Param(_, _, value) | Step::Rest(_, value), Segment::Literal(_)) => {
                Decision::Literal {
                    position,
                    value: value.to_string(),
                    reason: KeptReason::OwnShape { siblings: 1 },
                }
            }
        })
        .collect();
    Explanation {
        template: template.to_string(),
        decisions,
    }
}

#[cfg(test)]
mod tests {
    use super::super::trie::SeenCall;
    use super::super::{Origin, Templater};
    use super::*;

    const RESOURCES: [&str; 10] = [
        "users",
        "orders",
        "products",
        "carts",
        "reviews",
        "invoices",
        "shipments",
        "coupons",
        "stores",
        "payments",
    ];
    const CATEGORIES: [&str; 10] = [
        "shoes", "shirts", "hats", "bags", "socks", "belts", "boots", "coats", "gloves", "scarves",
    ];

    fn tpl(t: &Templater, path: &str) -> String {
        t.template("h", path).to_string()
    }

    /// Asserts that `explain` of `path` says `text`.
    #[track_caller]
    fn assert_explains(t: &Templater, path: &str, text: &str) {
        let explained = t.explain("h", path).to_string();
        assert!(explained.contains(text), "{explained}");
    }

    fn literal_reason(t: &Templater, path: &str, position: usize) -> KeptReason {
        match &t.explain("h", path).decisions[position] {
            Decision::Literal { reason, .. } => reason.clone(),
            other => panic!("{path} [{position}] is not literal: {other:?}"),
        }
    }

    #[test]
    fn a_constant_version_before_many_paths_stays_literal() {
        let mut t = Templater::default();
        for r in ["assignments", "forms", "tags"] {
            t.observe("h", &format!("/1/{r}"), None);
            t.observe(
                "h",
                &format!("/1/{r}/0b0e5f6e-8c4d-4b1a-9d2e-1f2a3b4c5d6e"),
                None,
            );
        }
        assert_eq!(tpl(&t, "/1/forms"), "/1/forms");
        assert_eq!(
            tpl(&t, "/1/tags/0b0e5f6e-8c4d-4b1a-9d2e-1f2a3b4c5d6e"),
            "/1/tags/{tagId}"
        );
        assert_explains(
            &t,
            "/1/forms",
            "[0] 1: literal, a constant: the only value here in 6 flows, followed by 6 different paths",
        );
        // The same under a prefix word, and for a dotted version.
        let mut t = Templater::default();
        for r in ["search", "get", "list"] {
            t.observe("h", &format!("/api/3/{r}"), None);
            t.observe("h", &format!("/api/2.0/runs/{r}"), None);
        }
        assert_eq!(tpl(&t, "/api/3/search"), "/api/3/search");
        assert_eq!(tpl(&t, "/api/2.0/runs/list"), "/api/2.0/runs/list");
        // One id seen everywhere after a collection word is still an id.
        let mut t = Templater::default();
        for r in ["orders", "profile", "settings"] {
            t.observe("h", &format!("/users/42/{r}"), None);
        }
        assert_eq!(tpl(&t, "/users/42/orders"), "/users/{userId}/orders");
        // A constant that leads to a single path is no evidence either way.
        let mut t = Templater::default();
        t.observe("h", "/items/7", None);
        assert_eq!(tpl(&t, "/items/7"), "/items/{itemId}");
    }

    #[test]
    fn dates_that_each_lead_to_their_own_paths_are_literals() {
        let mut t = Templater::default();
        for (date, paths) in [
            (
                "2015-03-31",
                &["functions", "functions/resize", "event-source-mappings"][..],
            ),
            ("2018-10-31", &["layers", "layers/otel/versions"][..]),
            (
                "2019-09-25",
                &[
                    "functions/resize/event-invoke-config",
                    "functions/thumbs/event-invoke-config/list",
                ][..],
            ),
        ] {
            for p in paths {
                t.observe("h", &format!("/{date}/{p}"), None);
            }
        }
        assert_eq!(tpl(&t, "/2018-10-31/layers"), "/2018-10-31/layers");
        assert_explains(
            &t,
            "/2018-10-31/layers",
            "each of 3 values leads to paths of its own (0 of 7 paths shared)",
        );
        // Dates that lead to the same paths are values of one parameter.
        let mut t = Templater::default();
        for date in ["2024-05-01", "2024-05-02", "2024-05-03"] {
            for p in ["summary", "events"] {
                t.observe("h", &format!("/reports/{date}/{p}"), None);
            }
        }
        assert_eq!(
            tpl(&t, "/reports/2024-05-02/events"),
            "/reports/{date}/events"
        );
        // So are versions beside a strong value at the same position.
        let mut t = Templater::default();
        for v in ["1.2.0", "1.3.1"] {
            t.observe("h", &format!("/packages/serde/{v}"), None);
        }
        assert_eq!(
            tpl(&t, "/packages/serde/1.3.1"),
            "/packages/serde/{version}"
        );
    }

    #[test]
    fn ids_before_a_format_suffix_are_parameters_and_suffixes_are_no_anchor() {
        let mut t = Templater::default();
        for id in [27176, 35860] {
            t.observe("h", &format!("/t/{id}.json"), None);
            t.observe("h", &format!("/t/{id}/posts.json"), None);
        }
        for leaf in ["latest", "search", "site", "top"] {
            t.observe("h", &format!("/{leaf}.json"), None);
        }
        let template = t.template("h", "/t/40452.json");
        assert_eq!(template.to_string(), "/t/{tId}.json");
        assert_eq!(template.param_at(1).unwrap().suffix, ".json");
        assert_eq!(tpl(&t, "/t/40452/posts.json"), "/t/{tId}/posts.json");
        // Leaves that only share `.json` are not alike.
        assert_eq!(tpl(&t, "/latest.json"), "/latest.json");
        assert_eq!(tpl(&t, "/site.json"), "/site.json");
        // A dotted stem keeps its whole segment.
        t.observe("h", "/domains/mail.example.json", None);
        assert_eq!(
            tpl(&t, "/domains/mail.example.json"),
            "/domains/mail.example.json"
        );
        assert_explains(
            &t,
            "/t/27176.json",
            "[1] {tId}: each value looks like integer",
        );
    }

    #[test]
    fn rpc_names_that_answer_in_shapes_of_their_own_stay_literal() {
        let mut t = Templater::default();
        let calls = [
            ("experiments", "search", 1),
            ("experiments", "get", 2),
            ("runs", "search", 3),
            ("runs", "get", 4),
            ("logged-models", "search", 5),
            ("datasets", "search", 6),
        ];
        for (noun, verb, shape) in calls {
            t.observe("h", &format!("/api/2.0/mlflow/{noun}/{verb}"), Some(shape));
        }
        assert_eq!(
            tpl(&t, "/api/2.0/mlflow/runs/search"),
            "/api/2.0/mlflow/runs/search"
        );
        assert_eq!(
            tpl(&t, "/api/2.0/mlflow/logged-models/search"),
            "/api/2.0/mlflow/logged-models/search"
        );
        // At the root too (every call a POST to a literal path).
        let mut t = Templater::default();
        let calls = [
            ("transfer/get", 1),
            ("transfer/refund/create", 2),
            ("wallet/get", 3),
            ("wallet/transaction/get", 4),
            ("accounts/balance/get", 5),
            ("deposit_switch/alt/create", 6),
        ];
        for (path, shape) in calls {
            t.observe("h", &format!("/{path}"), Some(shape));
        }
        assert_eq!(tpl(&t, "/wallet/get"), "/wallet/get");
        assert_eq!(
            tpl(&t, "/deposit_switch/alt/create"),
            "/deposit_switch/alt/create"
        );
        // Slugs that answer alike still fold there.
        let mut t = Templater::default();
        for owner in ["acme", "globex", "initech"] {
            t.observe("h", &format!("/{owner}/{owner}-web/issues"), Some(9));
        }
        assert_eq!(tpl(&t, "/acme/acme-web/issues"), "/{owner}/{name}/issues");
    }

    #[test]
    fn percent_encoded_values_are_parameters_beside_plain_names() {
        let mut t = Templater::default();
        for project in ["blue-harbor%2Fcli", "globex%2Fdocs"] {
            t.observe("h", &format!("/projects/{project}/issues"), None);
        }
        t.observe("h", "/projects/42/issues", None);
        assert_eq!(
            tpl(&t, "/projects/globex%2Fdocs/issues"),
            "/projects/{projectId}/issues"
        );
        assert_eq!(
            tpl(&t, "/projects/42/issues"),
            "/projects/{projectId}/issues"
        );
        t.observe("h", "/genres/Drum%20%26%20Bass", None);
        assert_eq!(tpl(&t, "/genres/Drum%20%26%20Bass"), "/genres/{genre}");
    }

    #[test]
    fn a_literal_that_behaves_like_the_parameter_beside_it_folds_into_it() {
        let mut t = Templater::default();
        for id in ["1204829", "1208830"] {
            for leaf in ["user_task_list", "workspace_memberships"] {
                t.observe("h", &format!("/users/{id}/{leaf}"), Some(1));
            }
        }
        t.observe("h", "/users/me/user_task_list", Some(1));
        assert_eq!(
            tpl(&t, "/users/me/user_task_list"),
            "/users/{userId}/user_task_list"
        );
        assert_explains(
            &t,
            "/users/me/user_task_list",
            "leads to the same paths as the values beside it (1 shared)",
        );
        // A leaf folds when it answers in the parameter's shape, and stays
        // when it answers in its own (or nothing tells).
        t.observe("h", "/users/1204829", Some(7));
        t.observe("h", "/users/me", Some(7));
        t.observe("h", "/users/count", Some(8));
        t.observe("h", "/users/search", None);
        assert_eq!(tpl(&t, "/users/me"), "/users/{userId}");
        assert_eq!(tpl(&t, "/users/count"), "/users/count");
        assert_eq!(tpl(&t, "/users/search"), "/users/search");
        // A literal with paths of its own stays.
        t.observe("h", "/users/me/settings", Some(3));
        t.observe("h", "/users/me/tokens", Some(4));
        assert_eq!(tpl(&t, "/users/me/settings"), "/users/me/settings");
    }

    #[test]
    fn in_a_namespace_a_word_that_leads_only_where_the_values_do_is_one_of_them() {
        // `team` names no collection, so names are expected below it; four
        // teams fold by the paths they share, answering alike there. Teams
        // seen once or twice, each leading only where the four do, are
        // more of them, though what they answered matched none of theirs
        // (an empty list, a schedule with other fields).
        let mut t = Templater::default();
        let teams: [(&str, &[&str]); 6] = [
            ("cedar", &["admins", "policies", "members"]),
            ("ember", &["members", "oncall/schedule"]),
            ("gamma", &["admins", "policies", "oncall/schedule"]),
            ("orion", &["admins", "members"]),
            ("pixel", &["admins"]),
            ("nebula", &["policies", "oncall/schedule"]),
        ];
        for (i, (team, paths)) in teams.iter().enumerate() {
            for path in *paths {
                let kind = ["admins", "policies", "members", "oncall/schedule"]
                    .iter()
                    .position(|p| p == path);
                let shape = kind.map(|k| if i < 4 { k } else { 10 + k });
                t.observe(
                    "h",
                    &format!("/v1/team/{team}/{path}"),
                    shape.map(|s| s as u64),
                );
            }
        }
        assert_eq!(tpl(&t, "/v1/team/pixel/admins"), "/v1/team/{team}/admins");
        assert_explains(
            &t,
            "/v1/team/nebula/policies",
            "[2] {team}: a literal that leads to the same paths as the values beside it (2 shared)",
        );
        assert_explains(
            &t,
            "/v1/team/cedar/policies",
            "[2] {team}: distinct literals whose subtrees end alike",
        );
        // A word followed by ids of its own is a resource there, though the
        // values lead to ids too (`/v1/team/{team}/{id}`).
        for team in ["cedar", "ember", "gamma"] {
            t.observe("h", &format!("/v1/team/{team}/81723"), Some(40));
        }
        t.observe("h", "/v1/team/products/81723", Some(41));
        assert_eq!(
            tpl(&t, "/v1/team/products/81723"),
            "/v1/team/products/{productId}"
        );
    }

    #[test]
    fn collection_words_in_a_namespace_stay_names_however_many() {
        let mut t = Templater::default();
        let nouns = [
            "experiments",
            "runs",
            "logged-models",
            "model-versions",
            "datasets",
            "traces",
            "scorers",
            "webhooks",
            "registered-models",
        ];
        for noun in nouns {
            // Empty results answer alike: shapes cannot tell them apart.
            t.observe("h", &format!("/mlflow/{noun}/search"), Some(1));
        }
        assert_eq!(tpl(&t, "/mlflow/runs/search"), "/mlflow/runs/search");
        assert_eq!(
            literal_reason(&t, "/mlflow/runs/search", 1),
            KeptReason::CollectionNames
        );
    }

    /// Class: namespace groups. Two names that share a child (`interfaces`)
    /// are not values of one parameter when most of what follows one of
    /// them follows no other: values are interchangeable, names are not.
    #[test]
    fn names_whose_paths_lead_where_no_sibling_goes_stay_names() {
        let mut t = Templater::default();
        let dcim = ["sites", "racks", "cables", "devices", "power-ports"];
        for (i, word) in dcim.iter().enumerate() {
            t.observe("h", &format!("/api/dcim/{word}/"), Some(i as u64));
            t.observe("h", &format!("/api/dcim/{word}/{}/", 10 + i), Some(9));
        }
        for id in [1, 2] {
            t.observe("h", &format!("/api/dcim/interfaces/{id}/"), Some(9));
            t.observe(
                "h",
                &format!("/api/virtualization/interfaces/{id}/"),
                Some(9),
            );
        }
        t.observe("h", "/api/virtualization/interfaces/", Some(5));
        assert_eq!(
            tpl(&t, "/api/virtualization/interfaces/2/"),
            "/api/virtualization/interfaces/{interfaceId}/"
        );
        assert_eq!(tpl(&t, "/api/dcim/racks/3/"), "/api/dcim/racks/{rackId}/");
        let reason = literal_reason(&t, "/api/dcim/racks/", 1);
        assert_eq!(reason, KeptReason::OwnSubtree { met: 1, paths: 11 });
        assert_eq!(
            reason.to_string(),
            "a name: 10 of its 11 paths lead where no alike sibling's do"
        );
        // Values lead to the same paths, and still fold in a namespace.
        let mut t = Templater::default();
        for user in ["ann", "bob", "cy"] {
            for leaf in ["summary", "activity", "badges"] {
                t.observe("h", &format!("/u/{user}/{leaf}/7"), Some(3));
            }
        }
        assert_eq!(tpl(&t, "/u/bob/badges/7"), "/u/{u}/badges/{badgeId}");
    }

    /// Class: namespace groups at the root. A word a version tag follows
    /// names a versioned API or service, however alike its paths are.
    #[test]
    fn a_word_a_version_follows_is_a_name() {
        let mut t = Templater::default();
        for service in ["geofences", "sensors", "users", "labels"] {
            for leaf in ["health", "version"] {
                t.observe("h", &format!("/{service}/v2/{leaf}"), Some(1));
            }
        }
        t.observe("h", "/geofences/v2/health/7", Some(2));
        assert_eq!(tpl(&t, "/sensors/v2/health"), "/sensors/v2/health");
        let reason = literal_reason(&t, "/sensors/v2/health", 0);
        assert_eq!(
            reason,
            KeptReason::Versioned {
                version: "v2".into()
            }
        );
        assert_eq!(
            reason.to_string(),
            "a name: the version tag `v2` follows it"
        );
    }

    /// Class: lists of ids in a segment. A comma list is several values at
    /// once, a parameter by its spelling, and a single value beside it
    /// joins it.
    #[test]
    fn comma_lists_are_values() {
        let mut t = Templater::default();
        for ids in ["4641251,7773458", "65793348,65067929,46730471"] {
            t.observe("h", &format!("/Line/{ids}/Route"), Some(4));
        }
        assert_eq!(tpl(&t, "/Line/1,2/Route"), "/Line/{lineIds}/Route");
        let explained = t.explain("h", "/Line/1,2/Route");
        assert!(
            matches!(
                &explained.decisions[1],
                Decision::Param { evidence, .. } if evidence.rule == Rule::Segment { kind: SegmentKind::List }
            ),
            "{explained:?}"
        );
    }

    /// A position whose every value is two numbers joined by a comma holds
    /// two parameters once three pairs differ; fewer, or lists of other
    /// lengths beside them, are one list parameter.
    #[test]
    fn pairs_of_numbers_are_two_parameters() {
        let mut t = Templater::default();
        for point in ["-37.8136,144.9631", "51.5072,-0.1276", "48.8566,2.3522"] {
            t.observe("h", &format!("/stops/location/{point}"), Some(4));
        }
        let template = t.template("h", "/stops/location/1.5,2.5");
        assert_eq!(
            template.to_string(),
            "/stops/location/{latitude},{longitude}"
        );
        let param = template.params().next().unwrap();
        assert_eq!(param.names().collect::<Vec<_>>(), ["latitude", "longitude"]);
        assert_eq!(param.split_value("1.5,2.5"), Some(vec!["1.5", "2.5"]));
        assert_explains(
            &t,
            "/stops/location/1.5,2.5",
            "each value is two numbers joined by a comma",
        );
        // Numbers that are no coordinates are numbered.
        let mut t = Templater::default();
        for pair in ["701,80939", "785,163", "79464,67956"] {
            t.observe("h", &format!("/outlets/location/{pair}"), Some(4));
        }
        assert_eq!(
            tpl(&t, "/outlets/location/1,2"),
            "/outlets/location/{location1},{location2}"
        );
        // Two pairs could be lists of two ids each time: one parameter.
        let mut t = Templater::default();
        for pair in ["701,80939", "785,163"] {
            t.observe("h", &format!("/outlets/location/{pair}"), Some(4));
        }
        assert_eq!(
            tpl(&t, "/outlets/location/1,2"),
            "/outlets/location/{locationIds}"
        );
        // A list of three beside them: a list.
        t.observe("h", "/outlets/location/1,2,3", Some(4));
        t.observe("h", "/outlets/location/4,5", Some(4));
        assert_eq!(
            tpl(&t, "/outlets/location/1,2"),
            "/outlets/location/{locationIds}"
        );
    }

    #[test]
    fn many_rest_collections_with_alike_items_stay_literal() {
        let mut t = Templater::default();
        for (i, r) in RESOURCES.iter().enumerate() {
            for id in [i * 100 + 1, i * 100 + 2] {
                t.observe("h", &format!("/v1/{r}/{id}"), Some(7));
                t.observe("h", &format!("/v1/{r}/{id}/events"), Some(8));
            }
            t.observe("h", &format!("/v1/{r}"), Some(9));
        }
        t.observe("h", "/v1/users/me", Some(10));
        assert_eq!(tpl(&t, "/v1/users/5"), "/v1/users/{userId}");
        assert_eq!(
            tpl(&t, "/v1/orders/5/events"),
            "/v1/orders/{orderId}/events"
        );
        assert_eq!(tpl(&t, "/v1/payments"), "/v1/payments");
        assert_eq!(tpl(&t, "/v1/users/me"), "/v1/users/me");
        assert_eq!(
            literal_reason(&t, "/v1/orders/5", 1),
            KeptReason::Collection {
                id_kinds: vec![SegmentKind::Integer],
                ids: 2,
                siblings: 10,
            }
        );
        assert_explains(
            &t,
            "/v1/orders/5",
            "followed by its own integer ids (2 distinct), one of 10",
        );
    }

    #[test]
    fn separated_and_camel_case_collections_stay_literal_too() {
        let mut t = Templater::default();
        let names = ["payment-methods", "tax_rates", "lineItems"];
        for (i, r) in RESOURCES.iter().take(7).chain(&names).enumerate() {
            t.observe("h", &format!("/v1/{r}/{i}/events"), None);
        }
        assert_eq!(
            tpl(&t, "/v1/payment-methods/3/events"),
            "/v1/payment-methods/{paymentMethodId}/events"
        );
        assert_eq!(tpl(&t, "/v1/lineItems/3"), "/v1/lineItems/{lineItemId}");
        assert_eq!(tpl(&t, "/v1/users/3/events"), "/v1/users/{userId}/events");
    }

    #[test]
    fn plural_values_with_literal_children_fold_from_eight_on() {
        let mut t = Templater::default();
        for (i, c) in CATEGORIES.iter().enumerate() {
            t.observe("h", &format!("/categories/{c}/items"), Some(1));
            if i == 6 {
                // Seven alike plural words: a closed vocabulary, still literal.
                assert_eq!(
                    tpl(&t, "/categories/boots/items"),
                    "/categories/boots/items"
                );
                assert_eq!(
                    literal_reason(&t, "/categories/boots/items", 1),
                    KeptReason::CollectionNames
                );
            }
        }
        assert_eq!(
            tpl(&t, "/categories/shoes/items"),
            "/categories/{category}/items"
        );
        let param = t.template("h", "/categories/shoes/items").segments[1].clone();
        let Segment::Param(param) = param else {
            panic!("a parameter")
        };
        assert_eq!(
            param.evidence.rule,
            Rule::Alike {
                anchor: "items".into()
            }
        );
    }

    #[test]
    fn provenance_of_three_in_a_group_beats_collection_ids() {
        let mut t = Templater::default();
        let origin = Origin {
            field_path: "$.departments[].slug".into(),
            name: "departmentSlug".into(),
            use_name: true,
        };
        for (d, id) in [("lamps", 17), ("desks", 18), ("mugs", 19), ("rugs", 20)] {
            let origins = if d == "rugs" {
                vec![]
            } else {
                vec![(1, origin.clone())]
            };
            t.observe_with_origins(
                "h",
                &format!("/departments/{d}/{id}/reviews"),
                SeenCall::default(),
                &origins,
            );
        }
        // `rugs` was never in a body: it folds with the three that were.
        assert_eq!(
            tpl(&t, "/departments/rugs/20/reviews"),
            "/departments/{departmentSlug}/{departmentId}/reviews"
        );
        // Below three, only the literals seen in bodies fold.
        let mut t = Templater::default();
        for (d, id) in [("lamps", 17), ("desks", 18), ("rugs", 20)] {
            let origins = if d == "rugs" {
                vec![]
            } else {
                vec![(1, origin.clone())]
            };
            t.observe_with_origins(
                "h",
                &format!("/departments/{d}/{id}/reviews"),
                SeenCall::default(),
                &origins,
            );
        }
        assert_eq!(
            tpl(&t, "/departments/lamps/17/reviews"),
            "/departments/{departmentSlug}/{departmentId}/reviews"
        );
        assert_eq!(
            tpl(&t, "/departments/rugs/20/reviews"),
            "/departments/rugs/{rugId}/reviews"
        );
        // One accidental match in a body does not dissolve REST collections.
        let mut t = Templater::default();
        for (i, r) in RESOURCES.iter().enumerate() {
            let origins = if i == 0 {
                vec![(1, origin.clone())]
            } else {
                vec![]
            };
            t.observe_with_origins(
                "h",
                &format!("/v1/{r}/1/events"),
                SeenCall::default(),
                &origins,
            );
        }
        assert_eq!(
            tpl(&t, "/v1/orders/1/events"),
            "/v1/orders/{orderId}/events"
        );
    }

    #[test]
    fn in_a_namespace_a_word_seen_as_a_name_in_a_body_stays_a_name() {
        let origin = |field: &str| Origin {
            field_path: format!("$.models[].{field}"),
            name: "param".into(),
            use_name: false,
        };
        let mut t = Templater::default();
        for path in ["/api/ns/experiments/search", "/api/ns/runs/search"] {
            t.observe_with_origins("h", path, SeenCall::default(), &[]);
        }
        // `demo` was a tag's key in a listing: under `ns`, which names no
        // collection, it is the name of an operation's resource.
        t.observe_with_origins(
            "h",
            "/api/ns/demo/generate",
            SeenCall::default(),
            &[(2, origin("tags[].key"))],
        );
        assert_eq!(tpl(&t, "/api/ns/demo/generate"), "/api/ns/demo/generate");
        // A value of an identifier field is a value there too.
        t.observe_with_origins(
            "h",
            "/api/ns/m-8f2k/generate",
            SeenCall::default(),
            &[(2, origin("model_id"))],
        );
        assert_eq!(tpl(&t, "/api/ns/m-8f2k/generate"), "/api/ns/{ns}/generate");
    }

    /// After an id, a word followed by ids of its own is a sub-collection,
    /// though a body gave it as a key's value (`"key": "ad"`): APIs name
    /// their resources in their bodies too. Its siblings stay names with it.
    #[test]
    fn a_collection_named_in_a_body_stays_a_collection() {
        let origin = Origin {
            field_path: "$.alerts[].details[].aspect.key".into(),
            name: "key".into(),
            use_name: false,
        };
        let mut t = Templater::default();
        for (n, campaign) in (0..).zip([18186759, 34751156, 36245008, 92255158]) {
            t.observe("h", &format!("/v1/ad_campaign/{campaign}"), None);
            for (sub, first) in [
                ("ad", 2949084),
                ("ad_group", 38660244),
                ("keyword", 21245413),
            ] {
                let origins = if sub == "ad" {
                    vec![(3, origin.clone())]
                } else {
                    vec![]
                };
                t.observe_with_origins(
                    "h",
                    &format!("/v1/ad_campaign/{campaign}/{sub}/{}", first + n),
                    SeenCall::default(),
                    &origins,
                );
            }
        }
        assert_eq!(
            tpl(&t, "/v1/ad_campaign/36245008/ad/2949086"),
            "/v1/ad_campaign/{adCampaignId}/ad/{adId}"
        );
        assert_eq!(
            tpl(&t, "/v1/ad_campaign/36245008/keyword/21245415"),
            "/v1/ad_campaign/{adCampaignId}/keyword/{keywordId}"
        );
    }

    #[test]
    fn same_shaped_plural_leaves_stay_literal_before_and_after_their_ids() {
        // A dashboard loads ten lists sharing one envelope, then items: the
        // lists never fold, so nothing has to be split apart later.
        let mut t = Templater::default();
        for r in RESOURCES {
            t.observe("h", &format!("/api/{r}"), Some(3));
        }
        for page in ["about", "help", "contact", "press", "legal"] {
            t.observe("h", &format!("/api/{page}"), Some(3));
        }
        assert_eq!(tpl(&t, "/api/orders"), "/api/orders");
        assert_eq!(
            literal_reason(&t, "/api/orders", 1),
            KeptReason::CollectionNames
        );
        // Five other same-shaped leaves still fold by cardinality.
        assert_eq!(tpl(&t, "/api/help"), "/api/{name}");
        t.observe("h", "/api/users/42", Some(4));
        assert_eq!(tpl(&t, "/api/orders"), "/api/orders");
        assert_eq!(tpl(&t, "/api/users"), "/api/users");
        assert_eq!(tpl(&t, "/api/users/42"), "/api/users/{userId}");
    }

    #[test]
    fn slugs_alike_only_to_collections_stay_literal() {
        let mut t = Templater::default();
        for r in ["users", "orders", "teams"] {
            t.observe("h", &format!("/v1/{r}/7/members"), None);
        }
        t.observe("h", "/v1/acme/7/members", None);
        assert_eq!(tpl(&t, "/v1/acme/7/members"), "/v1/acme/{acmeId}/members");
        assert_eq!(tpl(&t, "/v1/teams/7/members"), "/v1/teams/{teamId}/members");
        // Three slugs alike among themselves still fold beside the collections.
        for slug in ["globex", "initech"] {
            t.observe("h", &format!("/v1/{slug}/7/members"), None);
        }
        assert_eq!(tpl(&t, "/v1/acme/7/members"), "/v1/{name}/{id}/members");
        assert_eq!(tpl(&t, "/v1/teams/7/members"), "/v1/teams/{teamId}/members");
    }

    #[test]
    fn singular_resource_names_stay_apart_when_each_answers_in_its_own_shape() {
        let words = ["user", "order", "product", "invoice", "address"];
        let observe = |t: &mut Templater, shape: &dyn Fn(usize) -> Option<u64>| {
            for (i, word) in words.iter().enumerate() {
                for id in [7, 8, 9] {
                    t.observe("h", &format!("/api/{word}/{id}/details"), shape(i));
                }
            }
        };
        // Each word's details have a shape of their own: five resources.
        let mut t = Templater::default();
        observe(&mut t, &|i| Some(100 + i as u64));
        assert_eq!(tpl(&t, "/api/user/7/details"), "/api/user/{userId}/details");
        assert_eq!(
            tpl(&t, "/api/address/9/details"),
            "/api/address/{addressId}/details"
        );
        // Below a word that names no collection, paths that answer in
        // shapes of their own are not even alike.
        assert_eq!(
            literal_reason(&t, "/api/order/7/details", 1),
            KeptReason::OwnShape { siblings: 5 }
        );
        // Below a collection word they are alike, and kept as collections.
        let mut t = Templater::default();
        for (i, word) in words.iter().enumerate() {
            for id in [7, 8, 9] {
                let shape = Some(100 + i as u64);
                t.observe("h", &format!("/resources/{word}/{id}/details"), shape);
            }
        }
        assert!(matches!(
            literal_reason(&t, "/resources/order/7/details", 1),
            KeptReason::Collection { siblings: 5, .. }
        ));
        // One shape for all (values of one parameter), or no responses to
        // compare: they fold.
        let one_shape = |_| Some(100u64);
        let no_shape = |_| None;
        for shape in [&one_shape as &dyn Fn(usize) -> Option<u64>, &no_shape] {
            let mut t = Templater::default();
            observe(&mut t, shape);
            assert_eq!(tpl(&t, "/api/user/7/details"), "/api/{name}/{id}/details");
        }
        // Words that share a shape are values (three of them fold), the rest stay names.
        let mut t = Templater::default();
        observe(&mut t, &|i| Some(100 + (i as u64).min(2)));
        assert_eq!(tpl(&t, "/api/user/7/details"), "/api/user/{userId}/details");
        assert_eq!(
            tpl(&t, "/api/invoice/7/details"),
            "/api/{name}/{id}/details"
        );
    }

    #[test]
    fn values_whose_deeper_values_vary_answer_alike_and_fold() {
        // Project keys, then flag keys, then environment keys: no two paths
        // share a literal, but each answers as one flag's targets.
        let mut t = Templater::default();
        for (project, flag, env) in [
            ("web-storefront", "dark-mode", "staging"),
            ("mobile-app", "pricing-v2", "production"),
            ("internal-tools", "new-checkout", "test"),
        ] {
            t.observe(
                "h",
                &format!("/flags/{project}/{flag}/targets/{env}"),
                Some(7),
            );
        }
        assert_eq!(
            tpl(&t, "/flags/mobile-app/pricing-v2/targets/production"),
            "/flags/{owner}/{flag}/targets/{target}"
        );
        let explained = t
            .explain("h", "/flags/web-storefront/dark-mode/targets/staging")
            .to_string();
        assert!(
            explained.contains(
                "[1] {owner}: distinct literals whose subtrees answer alike at the same depth"
            ),
            "{explained}"
        );
        assert!(
            explained.contains("[4] {target}: 3 distinct leaf literals that answered alike"),
            "{explained}"
        );
        // Names below an id that each answer in their own shape stay names.
        let mut t = Templater::default();
        for (i, word) in ["orders", "payments"].iter().enumerate() {
            for id in ["9f48d4b12777f243308796e5", "dec539ca7a1e3927177d2168"] {
                t.observe(
                    "h",
                    &format!("/users/5e8f0a2b9c1d3e4f5a6b7c8d/{word}/{id}"),
                    Some(i as u64),
                );
            }
        }
        assert_eq!(
            tpl(
                &t,
                "/users/5e8f0a2b9c1d3e4f5a6b7c8d/orders/9f48d4b12777f243308796e5"
            ),
            "/users/{userId}/orders/{orderId}"
        );
        // Words below an id followed by ids, answering alike: values.
        let mut t = Templater::default();
        for env in ["staging", "production"] {
            for id in ["9f48d4b12777f243308796e5", "dec539ca7a1e3927177d2168"] {
                t.observe(
                    "h",
                    &format!("/destinations/5e8f0a2b9c1d3e4f5a6b7c8d/{env}/{id}"),
                    Some(3),
                );
            }
        }
        assert_eq!(
            tpl(
                &t,
                "/destinations/5e8f0a2b9c1d3e4f5a6b7c8d/staging/9f48d4b12777f243308796e5"
            ),
            "/destinations/{destinationId}/{destination}/{destinationId2}"
        );
    }

    #[test]
    fn words_found_after_several_values_are_names() {
        // Keys that end alike (`invoice/send_email` after each), followed by
        // the same operations and sub-resources each: those are names.
        let mut t = Templater::default();
        for key in ["alpha", "beta", "gamma", "delta"] {
            for tail in [
                "confirm",
                "refunds",
                "payments",
                "payments/capture",
                "invoice/send_email",
            ] {
                t.observe("h", &format!("/transactions/{key}/{tail}"), Some(1));
            }
        }
        assert_eq!(
            tpl(&t, "/transactions/beta/payments/capture"),
            "/transactions/{transaction}/payments/capture"
        );
        assert_eq!(
            tpl(&t, "/transactions/beta/invoice/send_email"),
            "/transactions/{transaction}/invoice/send_email"
        );
    }

    /// Words that follow several values are operations on them, but an
    /// operation is run or read, never deleted: three words each read and
    /// deleted after several values are items, answering alike. Read only,
    /// the same words stay names.
    #[test]
    fn words_read_and_deleted_after_several_values_are_items() {
        let call = |method| SeenCall {
            shape: Some(AnswerShape::exact(3)),
            query: None,
            method: Some(method),
            status: None,
        };
        let keys = ["AWS_REGION", "FEATURE_FLAGS", "NODE_ENV"];
        let targets = ["atlas", "cedar", "delta", "ember", "lumen"];
        for deleted in [true, false] {
            let mut t = Templater::default();
            for (n, target) in targets.iter().enumerate() {
                for key in [keys[n % 3], keys[(n + 1) % 3]] {
                    let path = format!("/config/{target}/{key}");
                    t.observe_with_origins("h", &path, call("GET"), &[]);
                    if deleted {
                        t.observe_with_origins("h", &path, call("DELETE"), &[]);
                    }
                }
            }
            let expected = if deleted {
                "/config/{owner}/{config}"
            } else {
                "/config/{config}/NODE_ENV"
            };
            assert_eq!(
                tpl(&t, "/config/delta/NODE_ENV"),
                expected,
                "deleted: {deleted}"
            );
        }
    }

    #[test]
    fn leaves_that_differ_in_a_required_query_parameter_are_operations() {
        let observe = |t: &mut Templater, path: &str, query: &str| {
            let call = SeenCall {
                shape: Some(AnswerShape::exact(7)),
                query: Some(query),
                method: None,
                status: None,
            };
            t.observe_with_origins("h", path, call, &[]);
        };
        // Three leaves that answered alike, but `compare` always sent
        // `faces` (four calls) and `retrieve` always `id` (three), which
        // no other leaf ever sent: three operations, not one.
        let mut t = Templater::default();
        for q in ["faces=a", "faces=b&details=1", "faces=c", "faces=d"] {
            observe(&mut t, "/v1/analysis/compare", q);
        }
        for q in ["id=1", "id=2", "id=3"] {
            observe(&mut t, "/v1/analysis/retrieve", q);
        }
        for q in ["", "count=3", "details=1"] {
            observe(&mut t, "/v1/analysis/latest", q);
        }
        assert_eq!(tpl(&t, "/v1/analysis/compare"), "/v1/analysis/compare");
        assert_eq!(tpl(&t, "/v1/analysis/latest"), "/v1/analysis/latest");
        // The same calls in another order give the same view: the call that
        // makes a leaf's third, and changes nothing else, counts too.
        let mut u = Templater::default();
        for q in ["id=1", "id=2", "id=3"] {
            observe(&mut u, "/v1/analysis/retrieve", q);
        }
        for q in ["", "count=3", "details=1"] {
            observe(&mut u, "/v1/analysis/latest", q);
        }
        for q in ["faces=a", "faces=b&details=1", "faces=c"] {
            observe(&mut u, "/v1/analysis/compare", q);
        }
        assert_eq!(tpl(&u, "/v1/analysis/compare"), "/v1/analysis/compare");
        assert_explains(
            &t,
            "/v1/analysis/retrieve",
            "[2] retrieve: literal, an operation of its own: it and a sibling that answered alike differ in a query parameter one always sent and the other never",
        );
        // Values of one parameter share what they were sent: optional
        // names come and go, and three calls with `details` beside two
        // without it are chance, not a required parameter.
        let mut t = Templater::default();
        for q in ["details=1", "details=1&x=2", "details=1"] {
            observe(&mut t, "/v1/items/cedar", q);
        }
        for (item, q) in [
            ("tango", ""),
            ("tango", "x=1"),
            ("orion", ""),
            ("orion", ""),
        ] {
            observe(&mut t, &format!("/v1/items/{item}"), q);
        }
        assert_eq!(tpl(&t, "/v1/items/cedar"), "/v1/items/{item}");
    }

    #[test]
    fn silent_leaves_sent_one_distinctive_query_name_are_values() {
        // Three streets that answered nothing to tell them apart, each sent
        // `postcode`, which no other place of the API is sent: one operation.
        let observe = |t: &mut Templater, path: &str, query: &str| {
            let call = SeenCall {
                shape: None,
                query: Some(query),
                method: None,
                status: None,
            };
            t.observe_with_origins("h", path, call, &[]);
        };
        let mut t = Templater::default();
        for street in ["atlas", "quartz", "vertex"] {
            observe(
                &mut t,
                &format!("/address/streets/{street}"),
                "postcode=delta",
            );
        }
        for list in ["/address/places", "/lines", "/stops"] {
            observe(&mut t, list, "limit=10");
        }
        assert_eq!(
            tpl(&t, "/address/streets/quartz"),
            "/address/streets/{street}"
        );
        assert_explains(
            &t,
            "/address/streets/atlas",
            "[2] {street}: 3 distinct leaf literals, each sent a query parameter few places are sent",
        );
        // A name sent everywhere tells nothing: three silent leaves stay
        // apart (five are needed with no other evidence).
        let mut t = Templater::default();
        for street in ["atlas", "quartz", "vertex"] {
            observe(&mut t, &format!("/address/streets/{street}"), "limit=10");
        }
        for list in ["/address/places", "/lines", "/stops"] {
            observe(&mut t, list, "limit=10");
        }
        assert_eq!(
            tpl(&t, "/address/streets/quartz"),
            "/address/streets/quartz"
        );
    }

    #[test]
    fn leaves_that_vary_as_values_do_make_the_words_above_them_values() {
        // Country codes, each followed by a name or two: no path below one
        // code meets a path below another until the names, nearly each
        // seen once, are read as values that answered alike.
        let mut t = Templater::default();
        for (country, name) in [
            ("BR", "tango"),
            ("DE", "quartz"),
            ("FR", "quartz"),
            ("GB", "summit"),
            ("GB", "maple-96"),
        ] {
            t.observe("h", &format!("/classify/{country}/{name}"), Some(5));
        }
        assert_eq!(
            tpl(&t, "/classify/FR/quartz"),
            "/classify/{owner}/{classify}"
        );
        // Operations of a few resources, each called again and again: their
        // names recur in every call, so the resources stay names.
        let mut t = Templater::default();
        for (resource, operation) in [
            ("item", "fire_webhook"),
            ("item", "set_verification_status"),
            ("income", "refresh"),
            ("bank_transfer", "simulate"),
        ] {
            for _ in 0..3 {
                t.observe("h", &format!("/sandbox/{resource}/{operation}"), Some(5));
            }
        }
        assert_eq!(
            tpl(&t, "/sandbox/income/refresh"),
            "/sandbox/income/refresh"
        );
    }

    #[test]
    fn two_values_leading_to_the_same_several_paths_fold() {
        let mut t = Templater::default();
        for source in ["client", "server"] {
            for tail in ["", "/bysdkversion", "/sdkversions"] {
                t.observe("h", &format!("/usage/streams/{source}{tail}"), None);
            }
        }
        assert_eq!(
            tpl(&t, "/usage/streams/server/sdkversions"),
            "/usage/streams/{stream}/sdkversions"
        );
        // One shared path one segment long is not enough for two.
        let mut t = Templater::default();
        for source in ["client", "server"] {
            t.observe("h", &format!("/usage/streams/{source}/bysdkversion"), None);
        }
        assert_eq!(
            tpl(&t, "/usage/streams/server/bysdkversion"),
            "/usage/streams/server/bysdkversion"
        );
    }

    #[test]
    fn literals_beside_short_integer_ids_that_lead_to_their_paths_fold() {
        let mut t = Templater::default();
        for group in ["41", "46", "51", "beta-testers", "moderators"] {
            t.observe("h", &format!("/groups/{group}/members.json"), None);
        }
        assert_eq!(
            tpl(&t, "/groups/beta-testers/members.json"),
            "/groups/{groupId}/members.json"
        );
        let explained = t
            .explain("h", "/groups/moderators/members.json")
            .to_string();
        assert!(
            explained.contains("e.g. 41, 46, 51, beta-testers, moderators"),
            "{explained}"
        );
    }

    #[test]
    fn a_word_that_is_a_value_elsewhere_is_a_value_beside_values() {
        let mut t = Templater::default();
        // `/u/{user}`: three users alike by their `emails`, and a fourth
        // that answers as they do.
        for user in ["amelia_r", "bkowalski", "fatima_z"] {
            t.observe("h", &format!("/u/{user}/emails.json"), Some(2));
            t.observe("h", &format!("/u/{user}.json"), Some(1));
        }
        t.observe("h", "/u/discobot.json", Some(1));
        assert_eq!(tpl(&t, "/u/discobot.json"), "/u/{u}.json");
        // The same users in a list of their own, each answering in a shape
        // of its own (optional fields came and went).
        for (i, user) in ["amelia_r", "bkowalski", "discobot"].iter().enumerate() {
            t.observe(
                "h",
                &format!("/topics/sent/{user}.json"),
                Some(10 + i as u64),
            );
        }
        assert_eq!(
            tpl(&t, "/topics/sent/amelia_r.json"),
            "/topics/sent/{sent}.json"
        );
        assert_explains(
            &t,
            "/topics/sent/bkowalski.json",
            "[2] {sent}: a word that is a value at /u/{} too",
        );
        // One such word alone, with no values beside it, stays a name.
        t.observe("h", "/admin/list/fatima_z.json", Some(20));
        t.observe("h", "/admin/list/suspended.json", Some(21));
        assert_eq!(
            tpl(&t, "/admin/list/fatima_z.json"),
            "/admin/list/fatima_z.json"
        );
    }

    #[test]
    fn a_word_that_only_answered_like_values_does_not_carry_elsewhere() {
        // Three group paths answer as groups do, so they join the groups'
        // ids as slugs; that alone does not make `redwood` a value below
        // `/projects`, where it answers in a shape of its own.
        let mut t = Templater::default();
        for id in [
            "2869909",
            "353571",
            "4057748",
            "initech",
            "redwood",
            "umbrella-labs",
        ] {
            t.observe("h", &format!("/groups/{id}"), Some(1));
        }
        for id in ["10633639", "16323981", "redwood"] {
            t.observe(
                "h",
                &format!("/projects/{id}"),
                Some(if id == "redwood" { 3 } else { 2 }),
            );
        }
        assert_eq!(tpl(&t, "/groups/redwood"), "/groups/{groupId}");
        assert_eq!(tpl(&t, "/projects/redwood"), "/projects/redwood");
    }

    /// A few alike words, most of them plural, are names of lists however
    /// alike their items answer; one irregular plural among them is too.
    #[test]
    fn a_few_words_mostly_plural_are_names_of_lists() {
        let mut t = Templater::default();
        // Beside another word at the root, `/references` is not the API's top.
        t.observe("h", "/status", Some(9));
        for list in ["airlines", "airports", "cities", "aircraft"] {
            for code in ["falcon", "orion", "tango"] {
                t.observe("h", &format!("/references/{list}/{code}"), Some(1));
            }
        }
        assert!(tpl(&t, "/references/aircraft/orion").starts_with("/references/aircraft/"));
        assert_eq!(
            literal_reason(&t, "/references/aircraft/orion", 1),
            KeptReason::CollectionNames
        );
        // Words that each lead to one sub-collection are items, not lists,
        // though they end in `s`: a list leads to its items.
        let mut t = Templater::default();
        for service in ["analytics", "forms"] {
            for id in ["5f3c2a9e1b7d", "8e1d4c7b2a6f"] {
                let path = format!("/sites/s1/services/{service}/instances/{id}");
                t.observe("h", &path, Some(2));
            }
        }
        assert_eq!(
            tpl(&t, "/sites/s1/services/forms/instances/5f3c2a9e1b7d"),
            "/sites/s1/services/{service}/instances/{instanceId}"
        );
    }

    /// Collections side by side address their items alike: below a plural
    /// word beside collections keyed by words, a lone word answering with
    /// the fields their items share is an item; one answering in a shape of
    /// its own stays a name.
    #[test]
    fn a_lone_word_below_a_collection_beside_slug_collections_is_an_item() {
        // Leaves 0 and 1 (`index`, `name`) every item carries; the rest are
        // each collection's own.
        let observe = |t: &mut Templater, path: &str, own: u32| {
            let leaves = [0, 1, own, own + 1]
                .iter()
                .fold(0u128, |bits, l| bits | 1 << l);
            let call = SeenCall {
                shape: Some(AnswerShape::with_leaves(u64::from(own), leaves)),
                query: None,
                method: None,
                status: None,
            };
            t.observe_with_origins("h", path, call, &[]);
        };
        let mut t = Templater::default();
        for (i, collection) in ["spells", "classes", "conditions"].iter().enumerate() {
            for item in ["acid-arrow", "bard", "blinded"] {
                observe(
                    &mut t,
                    &format!("/api/{collection}/{item}"),
                    10 + 4 * i as u32,
                );
            }
        }
        observe(&mut t, "/api/feats/grappler", 40);
        assert_eq!(tpl(&t, "/api/feats/grappler"), "/api/feats/{feat}");
        assert_explains(
            &t,
            "/api/feats/grappler",
            "the only words below a collection, answering as items, where 3 sibling collections take words as their items' keys",
        );
        // Two words, answering as items with fields of their own each
        // (no two alike, so no other rule folds them): items too.
        observe(&mut t, "/api/tools/nebula", 50);
        observe(&mut t, "/api/tools/vertex", 60);
        assert_eq!(tpl(&t, "/api/tools/vertex"), "/api/tools/{tool}");
        // A settings page answers in a shape of its own: a name.
        let call = SeenCall {
            shape: Some(AnswerShape::with_leaves(99, 0b111 << 60)),
            query: None,
            method: None,
            status: None,
        };
        t.observe_with_origins("h", "/api/mail_settings/footer", call, &[]);
        assert_eq!(
            tpl(&t, "/api/mail_settings/footer"),
            "/api/mail_settings/footer"
        );
    }

    /// Where the sibling collections' items share no fields (a region, a
    /// language, a store each a shape of its own), a lone word answering
    /// in the very shape of the items of two of them is an item; one that
    /// answers like the items of one sibling only is not.
    #[test]
    fn a_lone_word_answering_as_the_items_of_two_collections_is_an_item() {
        let observe = |t: &mut Templater, path: &str, shape: AnswerShape| {
            let call = SeenCall {
                shape: Some(shape),
                query: None,
                method: None,
                status: None,
            };
            t.observe_with_origins("h", path, call, &[]);
        };
        let store = AnswerShape::with_leaves(1, 0b1111 << 8);
        let record = AnswerShape::with_leaves(2, 0b11 << 20);
        let build = |lone: AnswerShape| {
            let mut t = Templater::default();
            for (collection, shape) in [
                ("stores", store),
                ("regions", record),
                ("languages", record),
            ] {
                for item in ["north", "harbor", "vertex"] {
                    observe(&mut t, &format!("/catalog/{collection}/{item}"), shape);
                }
            }
            observe(&mut t, "/catalog/brands/acme", lone);
            t
        };
        let t = build(record);
        assert_eq!(tpl(&t, "/catalog/brands/acme"), "/catalog/brands/{brand}");
        assert_explains(
            &t,
            "/catalog/brands/acme",
            "the only words below a collection, answering as items, where 3 sibling collections take words as their items' keys",
        );
        let t = build(store);
        assert_eq!(tpl(&t, "/catalog/brands/acme"), "/catalog/brands/acme");
    }

    /// PUT, DELETE and PATCH act on the resource a path names: leaves that
    /// answered nothing but were only written are resources of the
    /// collection above, and one such leaf beside values written so is one
    /// of them. Silent leaves that were posted to stay operations.
    #[test]
    fn leaves_only_written_are_resources() {
        let call = |method| SeenCall {
            shape: None,
            query: None,
            method: Some(method),
            status: None,
        };
        let mut t = Templater::default();
        for (user, image) in [("7", "Disc"), ("7", "Thumb"), ("8", "Screenshot")] {
            let path = format!("/Users/{user}/Images/{image}");
            t.observe_with_origins("h", &path, call("DELETE"), &[]);
        }
        assert_eq!(
            tpl(&t, "/Users/7/Images/Disc"),
            "/Users/{userId}/Images/{image}"
        );
        assert_explains(
            &t,
            "/Users/7/Images/Disc",
            "3 distinct leaf literals, each only written",
        );
        let mut t = Templater::default();
        for (user, action) in [("7", "refresh"), ("7", "rebuild"), ("8", "reindex")] {
            let path = format!("/Users/{user}/Tasks/{action}");
            t.observe_with_origins("h", &path, call("POST"), &[]);
        }
        assert_eq!(
            tpl(&t, "/Users/7/Tasks/refresh"),
            "/Users/{userId}/Tasks/refresh"
        );
        // Values alike by what follows them, deleted too: a deleted leaf
        // beside them is one more.
        let mut t = Templater::default();
        for who in ["ada", "bob", "cyd"] {
            let answered = SeenCall {
                shape: Some(AnswerShape::exact(5)),
                query: None,
                method: Some("POST"),
                status: None,
            };
            t.observe_with_origins("h", &format!("/team/members/{who}/link"), answered, &[]);
            t.observe_with_origins("h", &format!("/team/members/{who}"), call("DELETE"), &[]);
        }
        t.observe_with_origins("h", "/team/members/zed", call("DELETE"), &[]);
        assert_eq!(tpl(&t, "/team/members/zed"), "/team/members/{member}");
        // A leaf deleted beside deleted values is one more, though it was
        // also read: a read that answered nothing says no operation.
        let mut t = Templater::default();
        for (person, tax) in [
            ("7", "summit"),
            ("8", "sierra"),
            ("9", "nebula"),
            ("7", "ember"),
        ] {
            let path = format!("/people/{person}/taxes/{tax}");
            t.observe_with_origins("h", &path, call("DELETE"), &[]);
        }
        t.observe_with_origins("h", "/people/8/taxes/ember", call("GET"), &[]);
        // So is a leaf only deleted beside values read and deleted, whatever
        // the reads answered.
        let mut u = Templater::default();
        for (number, method) in [("cedar", "GET"), ("delta", "GET"), ("cedar", "DELETE")] {
            let read = SeenCall {
                shape: (method == "GET").then(|| AnswerShape::exact(4)),
                ..call(method)
            };
            u.observe_with_origins("h", &format!("/numbers/{number}"), read, &[]);
        }
        u.observe_with_origins("h", "/numbers/nebula", call("DELETE"), &[]);
        assert_eq!(tpl(&u, "/numbers/nebula"), "/numbers/{number}");
        assert_eq!(
            tpl(&t, "/people/7/taxes/ember"),
            "/people/{personId}/taxes/{tax}"
        );
        assert_explains(
            &t,
            "/people/7/taxes/ember",
            "[3] {tax}: a literal written to (PUT, DELETE, PATCH) as the values beside it were, answering nothing of its own",
        );
    }

    /// Three or more words that answer alike the ids beside them, each
    /// adding a field the ids never showed, are more of them (a document
    /// kind reached by other keys); one such word is a view of its own.
    #[test]
    fn several_words_answering_alike_the_ids_are_ids_too() {
        let observe = |t: &mut Templater, path: &str, fingerprint: u64, extra: Option<u32>| {
            let leaves = (0..10).chain(extra).fold(0u128, |bits, l| bits | 1 << l);
            let call = SeenCall {
                shape: Some(AnswerShape::with_leaves(fingerprint, leaves)),
                query: None,
                method: None,
                status: None,
            };
            t.observe_with_origins("h", path, call, &[]);
        };
        let mut t = Templater::default();
        for id in ["604", "15225", "83390794"] {
            observe(&mut t, &format!("/analyses/{id}"), 1, None);
        }
        for (i, key) in ["b", "d4", "5d323"].into_iter().enumerate() {
            observe(
                &mut t,
                &format!("/analyses/{key}"),
                2 + i as u64,
                Some(20 + i as u32),
            );
        }
        assert_eq!(tpl(&t, "/analyses/d4"), "/analyses/{analysisId}");
        let mut t = Templater::default();
        for id in ["604", "15225", "83390794"] {
            observe(&mut t, &format!("/users/{id}"), 1, None);
        }
        observe(&mut t, "/users/me", 2, Some(20));
        assert_eq!(tpl(&t, "/users/me"), "/users/me");
    }

    /// In a namespace, alike words below one of which calls went on, time
    /// after time, to a name found below no other are names: values share
    /// what follows them. A value that most calls go to may have such a
    /// path by chance, and stays a value.
    #[test]
    fn a_name_below_one_alike_word_alone_makes_it_a_name() {
        let resources = ["annotation_layer", "css_template", "dataset", "report"];
        let mut t = Templater::default();
        for (n, name) in (0..).zip(resources) {
            t.observe("h", &format!("/{name}/_info"), Some(1));
            t.observe("h", &format!("/{name}/related/owner"), Some(2));
            for id in [100 + n, 200 + n, 300 + n] {
                t.observe("h", &format!("/{name}/{id}"), Some(3));
            }
        }
        for id in [11, 12, 13, 14, 15, 16] {
            t.observe(
                "h",
                &format!("/annotation_layer/{id}/annotation/{}", id + 50),
                Some(4),
            );
        }
        for id in [21, 22, 23, 24] {
            t.observe("h", &format!("/report/{id}/log/{}", id + 50), Some(5));
        }
        for id in [31, 32, 33, 34, 35] {
            t.observe("h", &format!("/dataset/{id}/refresh"), Some(6));
        }
        assert_eq!(
            tpl(&t, "/css_template/301"),
            "/css_template/{cssTemplateId}"
        );
        assert_explains(
            &t,
            "/annotation_layer/13/annotation/63",
            "[0] annotation_layer: literal, a name: 6 calls went on to `{}/annotation` below it and below none of its alike siblings",
        );
        // One user most calls go to, the only one with `throttle`: by chance.
        let mut t = Templater::default();
        for (user, calls) in [("hana", 12), ("kemal", 3), ("amelia", 3), ("dana", 3)] {
            for n in 0..calls {
                t.observe("h", &format!("/{user}/feeds/{}", 1000 + n), Some(1));
                t.observe("h", &format!("/{user}/groups"), Some(2));
            }
        }
        for _ in 0..4 {
            t.observe("h", "/hana/throttle", Some(3));
        }
        assert_eq!(tpl(&t, "/kemal/feeds/1001"), "/{name}/feeds/{feedId}");
        assert_eq!(tpl(&t, "/hana/throttle"), "/{name}/throttle");
    }

    /// In a namespace, the words one alike word alone leads to count
    /// together: two product areas with the same resources, each with
    /// operations of its own called again and again, are two names. After
    /// an id, where values are expected, one value explored more than the
    /// rest keeps its words, however many, unless one word alone is
    /// evidence enough.
    #[test]
    fn words_of_its_own_below_an_alike_word_in_a_namespace_count_together() {
        let mut t = Templater::default();
        let mut id = 10_000_000;
        for area in ["language", "vision"] {
            for _ in 0..6 {
                id += 7919;
                t.observe("h", &format!("/v2/{area}/datasets/{id}"), Some(1));
                t.observe("h", &format!("/v2/{area}/models/{id}"), Some(2));
                t.observe("h", &format!("/v2/{area}/train/{id}"), Some(3));
                t.observe("h", &format!("/v2/{area}/examples"), Some(4));
            }
        }
        for _ in 0..6 {
            t.observe("h", "/v2/language/intent", Some(5));
            t.observe("h", "/v2/language/sentiment", Some(5));
            t.observe("h", "/v2/vision/ocr", Some(5));
        }
        for _ in 0..3 {
            t.observe("h", "/v2/vision/feedback", Some(6));
            t.observe("h", "/v2/vision/bulkfeedback", Some(6));
        }
        assert_eq!(tpl(&t, "/v2/language/intent"), "/v2/language/intent");
        assert_eq!(
            tpl(&t, "/v2/vision/datasets/10007919"),
            "/v2/vision/datasets/{datasetId}"
        );
        assert_explains(
            &t,
            "/v2/language/intent",
            "[1] language: literal, a name: 12 calls went on to `intent`, `sentiment` below it and below none of its alike siblings",
        );
        // Repositories of one owner, one of them explored far more: its
        // own pages, five calls each, are no evidence together.
        let mut t = Templater::default();
        let owners = ["acme", "globex", "initech"];
        for owner in owners {
            for repo in ["infra", "web", "api", "docs"] {
                t.observe("h", &format!("/repos/{owner}/{repo}/issues"), Some(1));
                t.observe("h", &format!("/repos/{owner}/{repo}/pulls"), Some(1));
            }
        }
        for owner in owners.iter().chain(&owners[..2]) {
            t.observe("h", &format!("/repos/{owner}/infra/assignees"), Some(2));
            t.observe("h", &format!("/repos/{owner}/infra/environments"), Some(3));
        }
        assert_eq!(
            tpl(&t, "/repos/acme/infra/assignees"),
            "/repos/{owner}/{repo}/assignees"
        );
    }

    /// The same long id after two sibling words names one thing: the ids
    /// are one pool, and the words say which kind of thing is meant
    /// (`/follows/brands/61615302`, `/follows/series/61615302`). Short
    /// numbers recur by chance, and words whose paths answer unlike each
    /// other are two resources keyed by one id.
    #[test]
    fn sibling_words_followed_by_the_same_id_are_a_kind() {
        let mut t = Templater::default();
        for (kind, ids) in [
            ("brands", ["45780201", "61615302", "83687926"]),
            ("series", ["61615302", "76222386", "45780201"]),
        ] {
            t.observe("h", &format!("/my/follows/{kind}"), Some(1));
            for id in ids {
                t.observe("h", &format!("/my/follows/{kind}/{id}"), Some(2));
            }
        }
        assert_eq!(
            tpl(&t, "/my/follows/series/76222386"),
            "/my/follows/{follow}/{followId}"
        );
        assert_explains(
            &t,
            "/my/follows/brands/83687926",
            "[2] {follow}: one of 2 sibling words followed by the same id (`",
        );
        // Small numbers recur under unrelated collections by chance.
        let mut t = Templater::default();
        for (kind, ids) in [("brands", ["1", "2", "3"]), ("series", ["2", "3", "4"])] {
            t.observe("h", &format!("/my/follows/{kind}"), Some(1));
            for id in ids {
                t.observe("h", &format!("/my/follows/{kind}/{id}"), Some(2));
            }
        }
        assert_eq!(
            tpl(&t, "/my/follows/series/4"),
            "/my/follows/series/{seriesId}"
        );
        // One id keys a user and a profile, which answer each in its own
        // shape: two resources.
        let mut t = Templater::default();
        for (kind, shape) in [("users", 1), ("profiles", 2)] {
            for id in ["45780201", "61615302", "83687926"] {
                t.observe("h", &format!("/v1/{kind}/{id}"), Some(shape));
            }
        }
        assert_eq!(tpl(&t, "/v1/users/61615302"), "/v1/users/{userId}");
    }

    /// At the top of an API, resources keyed by words from one pool share
    /// keys by chance (`/license/cobalt`, `/product/cobalt`): below each
    /// resource alone its keys answered alike, so they are its ids, and the
    /// resources stay names however alike they all answer.
    #[test]
    fn resources_keyed_from_one_pool_stay_names() {
        let pool = [
            "alpha", "cobalt", "ember", "gamma", "maple", "orion", "quartz",
        ];
        let resources = [
            "license",
            "product",
            "token",
            "transaction",
            "paymentmethod",
        ];
        let mut t = Templater::default();
        t.observe("h", "/core/v2/rest/utility/licenseTypes", Some(9));
        for (n, name) in resources.iter().enumerate() {
            t.observe("h", &format!("/core/v2/rest/{name}"), Some(1));
            for key in pool.iter().cycle().skip(n).take(4) {
                t.observe("h", &format!("/core/v2/rest/{name}/{key}"), Some(1));
            }
        }
        assert_eq!(
            tpl(&t, "/core/v2/rest/token/maple"),
            "/core/v2/rest/token/{token}"
        );
        assert_explains(
            &t,
            "/core/v2/rest/product/gamma",
            "[3] product: literal, a resource at the top of the API: its paths meet those of 4 alike siblings only through ids of their own",
        );
    }

    /// An API names its resources in its own values (`type=project`), so a
    /// word at the top that leads to ids of its own is a resource though it
    /// is a value elsewhere.
    #[test]
    fn a_resource_named_in_values_elsewhere_stays_a_name() {
        let mut t = Templater::default();
        for (n, name) in ["issuetype", "project", "dashboard", "filter"]
            .iter()
            .enumerate()
        {
            t.observe("h", &format!("/rest/api/3/{name}"), Some(10 + n as u64));
            for id in [1_000 + n, 2_000 + n, 3_000 + n] {
                t.observe(
                    "h",
                    &format!("/rest/api/3/{name}/{id}"),
                    Some(20 + n as u64),
                );
            }
        }
        for (word, id) in [("issuetype", 41), ("project", 42), ("issuetype", 43)] {
            let path = format!("/rest/api/3/universal_avatar/type/{word}/owner/{id}");
            t.observe("h", &path, Some(30));
        }
        assert_eq!(
            tpl(&t, "/rest/api/3/project/2001"),
            "/rest/api/3/project/{projectId}"
        );
        assert_eq!(
            tpl(&t, "/rest/api/3/universal_avatar/type/project/owner/42"),
            "/rest/api/3/universal_avatar/type/{type}/owner/{ownerId}"
        );
    }

    /// At the top of an API, words whose paths meet only through ids of
    /// their own are its resources, however alike they answer; values there
    /// lead to names shared under each, and below the top words that meet so
    /// are still values (`/u/by-external/{provider}/{id}`).
    #[test]
    fn resources_at_the_top_meet_only_through_their_ids() {
        let resources = ["asset", "channel", "contributor", "feature", "platform"];
        let mut t = Templater::default();
        for (n, name) in (0..).zip(resources) {
            t.observe("h", &format!("/v2/{name}"), Some(1));
            for id in [1_000 + n, 2_000 + n, 3_000 + n] {
                t.observe("h", &format!("/v2/{name}/{id}"), Some(1));
            }
        }
        assert_eq!(tpl(&t, "/v2/channel/1001"), "/v2/channel/{channelId}");
        assert_explains(
            &t,
            "/v2/feature/3003",
            "[1] feature: literal, a resource at the top of the API: its paths meet those of 4 alike siblings only through ids of their own",
        );
        // Values at the top lead to names shared under each of them.
        let mut t = Templater::default();
        for tenant in ["acme", "initech", "globex", "hooli"] {
            for id in [11, 12, 13] {
                t.observe("h", &format!("/v2/{tenant}/users/{id}"), Some(1));
            }
            t.observe("h", &format!("/v2/{tenant}/users"), Some(2));
        }
        assert_eq!(tpl(&t, "/v2/hooli/users/12"), "/v2/{name}/users/{userId}");
        // Below the top, words that meet through their ids are values.
        let mut t = Templater::default();
        for other in ["t", "c", "search"] {
            t.observe("h", &format!("/{other}"), Some(5));
        }
        for (n, provider) in (0..).zip(["github", "google", "gitlab", "twitter"]) {
            for id in [100 + n, 200 + n, 300 + n] {
                t.observe("h", &format!("/u/by-external/{provider}/{id}"), Some(1));
            }
        }
        assert_ne!(
            tpl(&t, "/u/by-external/gitlab/102"),
            "/u/by-external/gitlab/{gitlabId}"
        );
    }

    /// In a namespace, three leaves that answered alike beside six names or
    /// more that each answered in a shape of their own are names too: values
    /// of one parameter are the most of their position, not a third of it.
    #[test]
    fn a_few_alike_leaves_among_many_names_are_names() {
        let mut t = Templater::default();
        let names = [
            "arrivals",
            "departures",
            "plan-trip",
            "search",
            "stops",
            "routes",
            "trips",
            "metadata",
            "alerts",
        ];
        for (shape, name) in (10..).zip(names) {
            t.observe("h", &format!("/ws/api/where/{name}"), Some(shape));
        }
        for name in ["bicycle-rental", "stops-for-location", "vehicles-for-route"] {
            t.observe("h", &format!("/ws/api/where/{name}"), Some(1));
        }
        assert_eq!(
            tpl(&t, "/ws/api/where/bicycle-rental"),
            "/ws/api/where/bicycle-rental"
        );
        assert_explains(
            &t,
            "/ws/api/where/stops-for-location",
            "[3] stops-for-location: literal, a name among names: it answered alike a few siblings, beside 9 names of this namespace",
        );
        // Twice as many names beside them are enough; with fewer, the alike
        // leaves are values.
        for (beside, expected) in [
            (6, "/ws/api/where/bicycle-rental"),
            (2, "/ws/api/where/{where}"),
        ] {
            let mut t = Templater::default();
            for (shape, name) in (10..).zip(&names[..beside]) {
                t.observe("h", &format!("/ws/api/where/{name}"), Some(shape));
            }
            for name in ["bicycle-rental", "stops-for-location", "vehicles-for-route"] {
                t.observe("h", &format!("/ws/api/where/{name}"), Some(1));
            }
            assert_eq!(
                tpl(&t, "/ws/api/where/bicycle-rental"),
                expected,
                "{beside} names"
            );
        }
    }

    /// Words only posted to beside ids, or among words, that were read,
    /// patched and deleted are actions, however like an item they answer:
    /// POST creates in a collection or runs an action.
    #[test]
    fn words_only_posted_to_beside_items_are_actions() {
        let observe = |t: &mut Templater, path: &str, method: &'static str| {
            let call = SeenCall {
                shape: Some(AnswerShape::exact(1)),
                query: None,
                method: Some(method),
                status: None,
            };
            t.observe_with_origins("h", path, call, &[]);
        };
        let mut t = Templater::default();
        for (id, method) in [("604", "GET"), ("15225", "PATCH"), ("83390794", "DELETE")] {
            observe(&mut t, &format!("/resources/{id}"), method);
        }
        for action in ["copy", "move", "compress"] {
            observe(&mut t, &format!("/resources/{action}"), "POST");
        }
        assert_eq!(tpl(&t, "/resources/copy"), "/resources/copy");
        assert_eq!(tpl(&t, "/resources/604"), "/resources/{resourceId}");
        assert_explains(
            &t,
            "/resources/move",
            "[1] move: literal, an action: only posted to, where the values beside it never were",
        );
        // Where the items are posted to as well, the words are items too.
        let mut t = Templater::default();
        for (id, method) in [("604", "POST"), ("15225", "GET"), ("83390794", "DELETE")] {
            observe(&mut t, &format!("/resources/{id}"), method);
        }
        for word in ["copy", "move", "compress"] {
            observe(&mut t, &format!("/resources/{word}"), "POST");
        }
        assert_eq!(tpl(&t, "/resources/copy"), "/resources/{resourceId}");
        // Among items keyed by words, read, put and deleted, a word only
        // posted to is an action too, though it answered as they do.
        let mut t = Templater::default();
        for (word, method) in [
            ("alpha", "GET"),
            ("atlas", "PUT"),
            ("cobalt", "DELETE"),
            ("gamma", "GET"),
            ("login", "POST"),
        ] {
            observe(&mut t, &format!("/users/{word}"), method);
        }
        assert_eq!(tpl(&t, "/users/atlas"), "/users/{user}");
        assert_explains(
            &t,
            "/users/login",
            "[1] login: literal, an action: only posted to, where the values beside it never were",
        );
    }

    /// A leaf whose alike sibling was a collection name is left to the
    /// rules after: answering as the values beside it do, it joins them.
    #[test]
    fn a_leaf_alone_after_its_group_joins_the_values_it_answers_like() {
        let mut t = Templater::default();
        for (path, shape) in [
            ("/tags/falcon", 1),
            ("/tags/falcon/media/recent", 2),
            ("/tags/pixel/media/recent", 2),
            ("/tags/delta", 1),
            ("/tags/trends", 1),
            ("/tags/search", 3),
        ] {
            t.observe("h", path, Some(shape));
        }
        assert_eq!(tpl(&t, "/tags/delta"), "/tags/{tag}");
        assert_eq!(tpl(&t, "/tags/search"), "/tags/search");
    }

    /// Words that change places among the slots below a word are values
    /// of every slot (`/compare/cedar/tango`, `/compare/tango/falcon`):
    /// names keep one place in a hierarchy.
    #[test]
    fn words_that_change_slots_make_every_slot_a_value() {
        let mut t = Templater::default();
        for path in ["cedar/tango", "tango/falcon", "beta/cedar"] {
            t.observe("h", &format!("/compare/{path}"), Some(1));
        }
        // Words whose paths are of other depths are names beside them.
        t.observe("h", "/compare/top", Some(5));
        t.observe("h", "/compare/global", Some(6));
        t.observe("h", "/compare/global/latest", Some(7));
        assert_eq!(tpl(&t, "/compare/beta/cedar"), "/compare/{owner}/{compare}");
        assert_eq!(tpl(&t, "/compare/global/latest"), "/compare/global/latest");
        assert_eq!(tpl(&t, "/compare/top"), "/compare/top");
        assert_explains(
            &t,
            "/compare/beta/cedar",
            "one of 2 slots whose words change places in 3 paths of one depth",
        );
        // Values below names that change places among themselves make
        // no values of the names (`arrivals`, `departures`).
        let mut t = Templater::default();
        for path in [
            "arrivals/beta/cedar",
            "arrivals/delta/beta",
            "departures/cedar/delta",
        ] {
            t.observe("h", &format!("/status/{path}"), Some(1));
        }
        assert!(tpl(&t, "/status/arrivals/beta/cedar").starts_with("/status/arrivals/"));
        // Paths that each answer in a shape of their own are operations,
        // though a word (`api`) is found in two slots.
        let mut t = Templater::default();
        for (path, shape) in [("guide/intro", 2), ("guide/api", 3), ("api/auth", 4)] {
            t.observe("h", &format!("/docs/{path}"), Some(shape));
        }
        assert_eq!(tpl(&t, "/docs/api/auth"), "/docs/api/auth");
        // A word found again only below itself has not moved: resources
        // whose actions repeat their names (`stream/stream`) stay names.
        let mut t = Templater::default();
        for path in [
            "stream/stream",
            "stream/all",
            "stream/frames",
            "profile/profile",
            "profile/map",
            "account/account",
            "account/billing",
        ] {
            t.observe("h", &format!("/v1/{path}"), None);
        }
        assert_eq!(tpl(&t, "/v1/profile/map"), "/v1/profile/map");
        assert_eq!(tpl(&t, "/v1/stream/stream"), "/v1/stream/stream");
        // Unless the words below are no hierarchy: `tango` is below two.
        let mut t = Templater::default();
        for path in ["cedar/cedar", "cedar/tango", "falcon/tango", "beta/alpha"] {
            t.observe("h", &format!("/search/{path}"), None);
        }
        assert_eq!(tpl(&t, "/search/cedar/cedar"), "/search/{owner}/{search}");
    }

    #[test]
    fn parts_of_joined_words_that_change_places_make_every_slot_a_value() {
        // Two values joined by `-` in the first slot: `harbor` is first in
        // one and second in another, each call brings its own chain.
        let mut t = Templater::default();
        for path in [
            "cedar-delta/alpha/FCO",
            "cobalt-harbor/gamma/FAN",
            "harbor-tango/gamma/YCP",
            "pixel-sierra/cobalt/YCP",
            "sierra-maple/gamma/ZXB",
        ] {
            t.observe("h", &format!("/cargo/route/{path}"), Some(7));
        }
        // One parameter each: whether `harbor-tango` is two values or one
        // slug of two words the traffic does not say.
        assert_eq!(
            tpl(&t, "/cargo/route/cedar-delta/alpha/FCO"),
            "/cargo/route/{owner}/{route}/{route2}"
        );
        assert_explains(
            &t,
            "/cargo/route/harbor-tango/gamma/YCP",
            "[2] {owner}: one of 3 slots whose words change places in 5 paths of one depth",
        );
        // A part found in another slot moves too (`cobalt`).
        let mut t = Templater::default();
        for path in [
            "cedar-delta/alpha/FCO",
            "pixel-cobalt/cobalt/FAN",
            "maple-tango/gamma/YCP",
            "sierra-lumen/gamma/ZXB",
        ] {
            t.observe("h", &format!("/cargo/route/{path}"), Some(7));
        }
        assert_eq!(
            tpl(&t, "/cargo/route/maple-tango/gamma/YCP"),
            "/cargo/route/{owner}/{route}/{route2}"
        );
        // Kebab-case names whose parts keep their places stay names.
        let mut t = Templater::default();
        for path in [
            "user-settings/theme/dark",
            "user-groups/admins/list",
            "access-tokens/active/count",
        ] {
            t.observe("h", &format!("/v1/{path}"), Some(7));
        }
        assert_eq!(
            tpl(&t, "/v1/user-groups/admins/list"),
            "/v1/user-groups/admins/list"
        );
    }

    /// An API spells its names one way: where they are capitalised, words
    /// in lowercase below a name are data, grouped as values are, though
    /// below a word that names no collection names are expected.
    #[test]
    fn lowercase_words_among_capitalised_names_are_values() {
        let observe = |t: &mut Templater, spell: &dyn Fn(&str) -> String| {
            let names = [
                "Employee", "PayCode", "Pension", "Holiday", "Journal", "Batch",
            ];
            for (i, name) in names.iter().enumerate() {
                for id in [7, 8, 9] {
                    let path = format!("/{}/{id}/{}/{}", spell("Employer"), spell(name), 10 + i);
                    t.observe("h", &path, Some(300 + i as u64));
                }
            }
            // Each revision's summary answers with keys of its own (as
            // optional fields come and go): alike paths, not equal answers.
            for (i, word) in ["beta", "orion", "sierra"].iter().enumerate() {
                let path = format!(
                    "/{}/7/{}/{}/{}",
                    spell("Employer"),
                    spell("Revision"),
                    spell(word),
                    spell("Summary")
                );
                t.observe("h", &path, Some(200 + i as u64));
            }
        };
        let mut t = Templater::default();
        observe(&mut t, &|w| w.to_string());
        assert_eq!(
            tpl(&t, "/Employer/7/Revision/orion/Summary"),
            "/Employer/{employerId}/Revision/{revision}/Summary"
        );
        let explained = t
            .explain("h", "/Employer/7/Revision/orion/Summary")
            .to_string();
        assert!(
            explained.contains(
                "lowercase words where this API's names are capitalised: \
                 distinct literals whose subtrees end alike at `Summary`"
            ),
            "{explained}"
        );
        // A word found so is a value where it recurs beside values.
        for id in ["31", "32", "33"] {
            t.observe("h", &format!("/archives/{id}"), Some(400));
        }
        t.observe("h", "/archives/orion", Some(401));
        assert_eq!(tpl(&t, "/archives/orion"), "/archives/{archiveId}");
        // Capitalised like the names, the words are names.
        let capital = |w: &str| {
            let mut chars = w.chars();
            chars.next().map_or_else(String::new, |c| {
                c.to_ascii_uppercase().to_string() + chars.as_str()
            })
        };
        let mut t = Templater::default();
        observe(&mut t, &capital);
        assert_eq!(
            tpl(&t, "/Employer/7/Revision/Orion/Summary"),
            "/Employer/{employerId}/Revision/Orion/Summary"
        );
        // In an API of lowercase names, below a word that names no
        // collection, they are names too.
        let mut t = Templater::default();
        observe(&mut t, &|w| w.to_ascii_lowercase());
        assert_eq!(
            tpl(&t, "/employer/7/revision/orion/summary"),
            "/employer/{employerId}/revision/orion/summary"
        );
    }

    /// A collection whose ids all have one spelling has a view or two that
    /// answers as one of its items does (`/broadcasts/latest`): names, where
    /// several words answering so are slugs in the ids' place.
    #[test]
    fn a_word_beside_ids_of_one_spelling_is_a_named_view() {
        let mut t = Templater::default();
        for id in ["2869909", "353571", "4057748", "latest"] {
            t.observe("h", &format!("/broadcasts/{id}"), Some(1));
        }
        assert_eq!(tpl(&t, "/broadcasts/4057748"), "/broadcasts/{broadcastId}");
        assert_eq!(tpl(&t, "/broadcasts/latest"), "/broadcasts/latest");
        assert_eq!(
            literal_reason(&t, "/broadcasts/latest", 1).to_string(),
            "a named view: a word beside ids that are each integer"
        );
        // Beside ids that are words themselves, the word joins them.
        let mut t = Templater::default();
        for id in ["jazz", "focus", "ambient", "latest"] {
            t.observe("h", &format!("/genres/{id}"), Some(1));
        }
        assert_eq!(tpl(&t, "/genres/latest"), "/genres/{genre}");
    }

    /// Class: word-valued ids under plural collections. Ids drawn from one
    /// pool recur under several collections (`orion` is a spell and a
    /// monster), which alone reads like an operation (`search` after
    /// `experiments` and `runs`); three or more leaves of one collection
    /// that answer alike are its items all the same, while operations each
    /// answer in their own shape.
    #[test]
    fn three_alike_leaves_of_a_collection_are_items_wherever_else_they_recur() {
        let mut t = Templater::default();
        for (collection, shape) in [("spells", 1), ("monsters", 2), ("feats", 3)] {
            t.observe("h", &format!("/api/{collection}"), Some(10 + shape));
            for word in ["orion", "cobalt", "quartz"] {
                t.observe("h", &format!("/api/{collection}/{word}"), Some(shape));
            }
        }
        assert_eq!(tpl(&t, "/api/spells/orion"), "/api/spells/{spell}");
        assert_eq!(tpl(&t, "/api/monsters/cobalt"), "/api/monsters/{monster}");
        // Operations shared by collections answer each in its own shape.
        let mut t = Templater::default();
        for (collection, base) in [("experiments", 1), ("runs", 10)] {
            for (i, op) in ["search", "get", "create"].iter().enumerate() {
                t.observe(
                    "h",
                    &format!("/api/{collection}/{op}"),
                    Some(base + i as u64),
                );
            }
        }
        assert_eq!(tpl(&t, "/api/runs/search"), "/api/runs/search");
        assert_eq!(
            literal_reason(&t, "/api/runs/get", 2),
            KeptReason::AfterSeveral
        );
    }

    /// Class: an action after the only id seen. After an id its spelling
    /// proves, two words that answer alike are still operations on it. (A
    /// camel-case word after an id, `clientTaskPONumber`, is a word, not a
    /// token: `ar_flow::segment`.)
    #[test]
    fn actions_after_the_only_id_seen_stay_operations() {
        let mut t = Templater::default();
        let id = "0b0e5f6e-8c4d-4b1a-9d2e-1f2a3b4c5d6e";
        t.observe("h", &format!("/jobs/{id}"), Some(1));
        t.observe("h", &format!("/jobs/{id}/pause"), Some(2));
        t.observe("h", &format!("/jobs/{id}/resume"), Some(2));
        assert_eq!(tpl(&t, &format!("/jobs/{id}/pause")), "/jobs/{jobId}/pause");
        assert_eq!(
            tpl(&t, &format!("/jobs/{id}/resume")),
            "/jobs/{jobId}/resume"
        );
        assert_eq!(
            literal_reason(&t, &format!("/jobs/{id}/resume"), 2),
            KeptReason::AfterSeveral
        );
        // Each action after an id of its own: two words that each follow
        // their own id are too few to be values, however alike they answer.
        let mut t = Templater::default();
        for (id, action) in [(1017, "pause"), (2203, "resume")] {
            t.observe("h", &format!("/jobs/{id}"), Some(1));
            t.observe("h", &format!("/jobs/{id}/{action}"), Some(2));
        }
        assert_eq!(tpl(&t, "/jobs/2203/resume"), "/jobs/{jobId}/resume");
        assert_eq!(tpl(&t, "/jobs/1017/pause"), "/jobs/{jobId}/pause");
    }

    /// Class: a second value after an id. A word that follows one id
    /// alone, a different word after each id, changes with the id; three
    /// such words that answer alike are values (`/tokens/check/<id>/<name>`),
    /// while a word after several ids stays an operation on them.
    #[test]
    fn words_that_change_with_the_id_before_are_values() {
        let mut t = Templater::default();
        for (id, name) in [
            (7596062, "alpha"),
            (62948043, "vertex"),
            (54067355, "cedar"),
        ] {
            t.observe("h", &format!("/tokens/check/{id}/{name}"), Some(5));
        }
        assert_eq!(
            tpl(&t, "/tokens/check/7596062/alpha"),
            "/tokens/check/{checkId}/{check}"
        );
        assert_explains(
            &t,
            "/tokens/check/7596062/alpha",
            "{check}: 3 distinct leaf literals that answered alike",
        );
        // `alpha` after a second id: an operation on them, and the others
        // alone are too few.
        t.observe("h", "/tokens/check/36403877/alpha", Some(5));
        assert_eq!(
            tpl(&t, "/tokens/check/36403877/alpha"),
            "/tokens/check/{checkId}/alpha"
        );
        assert_eq!(
            literal_reason(&t, "/tokens/check/36403877/alpha", 3),
            KeptReason::AfterSeveral
        );
        // Three words after one id are its operations.
        let mut t = Templater::default();
        for action in ["pause", "resume", "cancel"] {
            t.observe("h", &format!("/jobs/1017/{action}"), Some(2));
        }
        assert_eq!(tpl(&t, "/jobs/1017/cancel"), "/jobs/{jobId}/cancel");
    }

    /// Class: renderings after an id. Words after several ids are actions
    /// on them, unless each was only read and all answer in one document
    /// shape: GET changes nothing, so they are one read in several forms
    /// (`/invoices/{id}/{json,ubl,original}`). Posted, or answering bare
    /// values (`.../balance`, `.../totalSent`), they stay names.
    #[test]
    fn words_after_ids_only_read_and_answering_alike_are_renderings() {
        let ids = [
            "1ec76d68-414c-45f7-b7dc-353c701873b4",
            "da5baaa5-93ab-42e5-94ab-2b211c67f2ff",
            "82235cbb-2ef0-4244-98ad-3c29bcb5a7dc",
        ];
        let invoice = AnswerShape::with_leaves(11, 0b1111_0000);
        let number = AnswerShape::with_leaves(12, 0b1);
        let observe = |method, shape| {
            let mut t = Templater::default();
            for (i, form) in ["json", "ubl", "original"].into_iter().enumerate() {
                // Each form read for two invoices: after several ids.
                for id in [ids[i], ids[(i + 1) % 3]] {
                    let call = SeenCall {
                        shape: Some(shape),
                        query: None,
                        method: Some(method),
                        status: Some(200),
                    };
                    t.observe_with_origins("h", &format!("/invoices/{id}/{form}"), call, &[]);
                }
            }
            t
        };
        let path = format!("/invoices/{}/ubl", ids[0]);
        let t = observe("GET", invoice);
        assert_eq!(tpl(&t, &path), "/invoices/{invoiceId}/{invoice}");
        assert_explains(
            &t,
            &path,
            "{invoice}: 3 distinct leaf literals after an id, each only read (GET) and answering alike",
        );
        // Posted: actions on the invoice, however alike they answer.
        let t = observe("POST", invoice);
        assert_eq!(tpl(&t, &path), "/invoices/{invoiceId}/ubl");
        assert_eq!(literal_reason(&t, &path, 2), KeptReason::AfterSeveral);
        // A bare number each: nothing says they are of one kind.
        let t = observe("GET", number);
        assert_eq!(tpl(&t, &path), "/invoices/{invoiceId}/ubl");
    }

    /// Class: words a `by` asks for. A word ending in the preposition `by`
    /// (`count-by`, `group_by`, `sortBy`) asks for the key to count, group
    /// or sort by: two leaves after it answering alike are values of that
    /// key, where two leaves below any other word that names no collection
    /// stay names (`/auth/login`, `/auth/logout`). Leaves that answer unlike
    /// stay names; a path that goes on after a `by` names the kind of the
    /// value that follows it (`/members/by/handle/{handle}`).
    #[test]
    fn leaves_after_a_word_ending_in_by_are_the_key_it_asks_for() {
        let counts = AnswerShape::with_leaves(21, 0b1111_1000);
        let other = AnswerShape::with_leaves(22, 0b1_0000_0111_0000_0000);
        let observe = |pairs: &[(&str, AnswerShape)]| {
            let mut t = Templater::default();
            for (path, shape) in pairs {
                let call = SeenCall {
                    shape: Some(*shape),
                    query: None,
                    method: Some("POST"),
                    status: Some(200),
                };
                t.observe_with_origins("h", path, call, &[]);
            }
            t
        };
        let t = observe(&[
            ("/events/count-by/event", counts),
            ("/events/count-by/time", counts),
            ("/auth/login", counts),
            ("/auth/logout", counts),
        ]);
        assert_eq!(
            tpl(&t, "/events/count-by/time"),
            "/events/count-by/{countBy}"
        );
        assert_explains(
            &t,
            "/events/count-by/time",
            "{countBy}: 2 distinct leaf literals after `count-by`, answering alike: what follows a `by` is the key chosen, a value",
        );
        assert_eq!(tpl(&t, "/auth/logout"), "/auth/logout");
        let t = observe(&[
            ("/stats/group_by/day", counts),
            ("/stats/group_by/user", other),
        ]);
        assert_eq!(tpl(&t, "/stats/group_by/day"), "/stats/group_by/day");
        let mut t = Templater::default();
        for handle in ["ann", "bo", "cyd", "dee", "eve"] {
            t.observe("h", &format!("/members/by/handle/{handle}"), Some(3));
        }
        assert_eq!(
            tpl(&t, "/members/by/handle/ann"),
            "/members/by/handle/{handle}"
        );
    }

    /// Class: sub-resources after an id. Right after an id its spelling
    /// proves, words whose paths below meet only here and there are
    /// sub-resources of their own (`/Employer/1/Employee/{id}/Commentaries`,
    /// `/Employer/1/SubContractor/{id}/CisInstructions`), not values of a
    /// second parameter; words that lead to the same paths are values.
    #[test]
    fn words_right_after_an_id_are_sub_resources() {
        let mut t = Templater::default();
        let subs = [
            (
                "Employee",
                ["Commentaries", "JournalLines", "PayLines", "Notes"],
            ),
            (
                "SubContractor",
                ["CisInstructions", "JournalLines", "Tags", "Rates"],
            ),
            (
                "HolidayScheme",
                ["Revisions", "Summary", "Schedule", "Accruals"],
            ),
        ];
        for employer in [101, 202, 303] {
            for (sub, children) in subs {
                t.observe("h", &format!("/Employer/{employer}/{sub}/7"), Some(1));
                for child in children {
                    let path = format!("/Employer/{employer}/{sub}/7/{child}");
                    t.observe("h", &path, Some(2));
                }
            }
        }
        assert_eq!(
            tpl(&t, "/Employer/101/SubContractor/8/Tags"),
            "/Employer/{employerId}/SubContractor/{subContractorId}/Tags"
        );
        let reason = literal_reason(&t, "/Employer/101/SubContractor/8/Tags", 2);
        assert_eq!(reason, KeptReason::OwnSubtree { met: 2, paths: 5 });
        assert_eq!(
            reason.to_string(),
            "a name: 3 of its 5 paths lead where no alike sibling's do"
        );
        // After words folded into a parameter the same paths make values.
        let mut t = Templater::default();
        for owner in ["acme", "globex", "initech"] {
            for (repo, id) in [("web", 7), ("api", 8)] {
                t.observe("h", &format!("/orgs/{owner}/{repo}/issues/{id}"), Some(1));
            }
        }
        assert_eq!(
            tpl(&t, "/orgs/acme/web/issues/7"),
            "/orgs/{owner}/{org}/issues/{issueId}"
        );
    }

    /// Class: dotted RPC method names. Two resources sharing two methods
    /// make a grid that values with dots do not; the names stay literal
    /// however alike they answer. Host names with dots stay values.
    #[test]
    fn dotted_rpc_method_names_are_names() {
        let mut t = Templater::default();
        for name in [
            "album.tracks.get",
            "artist.get",
            "artist.search",
            "track.search",
            "track.subtitle.get",
            "chart.artists.get",
        ] {
            t.observe("h", &format!("/ws/1.1/{name}"), Some(1));
        }
        assert_eq!(tpl(&t, "/ws/1.1/artist.search"), "/ws/1.1/artist.search");
        let reason = literal_reason(&t, "/ws/1.1/artist.search", 2);
        assert_eq!(
            reason,
            KeptReason::RpcMethod {
                method: "search".into(),
                resources: 2
            }
        );
        assert_eq!(
            reason.to_string(),
            "an RPC method name: `.search` ends 2 sibling names, and their resources have several methods"
        );
        // A response format after the method is no method of its own.
        let mut t = Templater::default();
        for name in [
            "order.list.json",
            "order.info.json",
            "customer.list.json",
            "customer.info.json",
            "cart.coupon.list.json",
        ] {
            t.observe("h", &format!("/v1.1/{name}"), Some(1));
        }
        assert_eq!(tpl(&t, "/v1.1/order.list.json"), "/v1.1/order.list.json");
        assert!(matches!(
            literal_reason(&t, "/v1.1/cart.coupon.list.json", 1),
            KeptReason::RpcMethod { ref method, resources: 3 } if method == "list"
        ));
        let mut t = Templater::default();
        for domain in [
            "alpha.acme.io",
            "delta.contoso.org",
            "gamma.contoso.org",
            "delta.globex.com",
        ] {
            t.observe("h", &format!("/verified-domains/{domain}"), Some(1));
        }
        assert_eq!(
            tpl(&t, "/verified-domains/delta.globex.com"),
            "/verified-domains/{verifiedDomain}"
        );
    }

    /// Class: a fixed name and a value in one segment. Names that each end,
    /// after a dot, in several of the same words that answered alike take a
    /// value there (`/blacklist.{format}`); ids before those endings end in
    /// one more parameter; a `key=value` segment is a name and a value.
    #[test]
    fn names_that_end_in_shared_values_are_a_name_and_a_value() {
        let mut t = Templater::default();
        let formats = ["xmlv", "yamlv", "protov", "tomlv"];
        for (i, name) in ["blacklist", "categories", "entities"].iter().enumerate() {
            for format in formats {
                let shape = Some(i as u64 + 1);
                t.observe("h", &format!("/{name}.{format}"), shape);
            }
        }
        t.observe("h", "/status.xmlv", Some(7));
        for (id, format) in [("2574", "xmlv"), ("3310", "yamlv"), ("8841", "tomlv")] {
            t.observe("h", &format!("/document/{id}.{format}"), Some(5));
        }
        for format in formats {
            t.observe("h", &format!("/document/processed.{format}"), Some(6));
        }
        assert_eq!(tpl(&t, "/blacklist.yamlv"), "/blacklist.{format}");
        assert_eq!(tpl(&t, "/status.protov"), "/status.{format}");
        assert_eq!(
            tpl(&t, "/document/processed.xmlv"),
            "/document/processed.{format}"
        );
        assert_eq!(
            tpl(&t, "/document/9999.xmlv"),
            "/document/{documentId}.{format}"
        );
        // No file names: the ending is a value of its own.
        assert_explains(
            &t,
            "/document/2574.xmlv",
            "[1] {documentId}: 3 distinct leaf literals",
        );
        assert_explains(
            &t,
            "/categories.tomlv",
            "[0] {format}: the end of a name after its dot: 4 names here end in 4 of the same words",
        );
        let template = t.template("h", "/blacklist.xmlv");
        let param = template.param_at(0).unwrap();
        assert_eq!(param.prefix, "blacklist.");
        assert_eq!(param.split_value("blacklist.xmlv"), Some(vec!["xmlv"]));
        // RPC methods: each answers its own shape, so each is a name.
        let mut t = Templater::default();
        for (i, method) in ["list", "info", "history"].iter().enumerate() {
            for resource in ["conversations", "users"] {
                t.observe("h", &format!("/api/{resource}.{method}"), Some(i as u64));
            }
        }
        assert_eq!(tpl(&t, "/api/users.info"), "/api/users.info");
        // A key names its value.
        let mut t = Templater::default();
        for lang in ["es", "pt", "ro"] {
            t.observe("h", &format!("/search/en/translations={lang}"), Some(1));
        }
        assert_eq!(
            tpl(&t, "/search/en/translations=de"),
            "/search/en/translations={translations}"
        );
        assert_explains(
            &t,
            "/search/en/translations=es",
            "[2] {translations}: the value of `translations=` in a key=value segment",
        );
    }

    /// Class: word-valued names after a word that names no collection.
    /// Three leaves that answer alike are values (`/search/{query}`); two
    /// may be two operations of one kind; leaves with no answers need many.
    /// Beside values, words that answer unlike them are named views.
    #[test]
    fn three_leaves_that_answer_alike_are_values() {
        let mut t = Templater::default();
        for query in ["jazz", "deploy"] {
            t.observe("h", &format!("/api-v2/search/{query}"), Some(4));
        }
        assert_eq!(tpl(&t, "/api-v2/search/jazz"), "/api-v2/search/jazz");
        t.observe("h", "/api-v2/search/roadmap", Some(4));
        assert_eq!(tpl(&t, "/api-v2/search/jazz"), "/api-v2/search/{search}");
        assert_explains(
            &t,
            "/api-v2/search/jazz",
            "[2] {search}: 3 distinct leaf literals that answered alike",
        );
        let mut t = Templater::default();
        for op in ["search", "get", "list", "create"] {
            t.observe("h", &format!("/api/3/{op}"), None);
        }
        assert_eq!(tpl(&t, "/api/3/list"), "/api/3/list");
        // Named views beside a collection's ids answer as lists, not as one.
        let mut t = Templater::default();
        for id in [1234, 5678, 9012] {
            t.observe("h", &format!("/projects/{id}"), Some(1));
        }
        for view in ["owned", "starred", "visible", "all"] {
            t.observe("h", &format!("/projects/{view}"), Some(2));
        }
        assert_eq!(tpl(&t, "/projects/starred"), "/projects/starred");
        assert_eq!(tpl(&t, "/projects/5678"), "/projects/{projectId}");
    }

    /// Class: word-valued ids. A value seen in a body's `slug` field is an
    /// identifier by the field's name: in a namespace too, and even when it
    /// reads like a plural word (`aws-credentials`).
    #[test]
    fn slugs_seen_in_bodies_are_values_even_where_names_are_expected() {
        let origin = Origin {
            field_path: "$[].slug".into(),
            name: "slug".into(),
            use_name: true,
        };
        let mut t = Templater::default();
        for slug in ["aws-credentials", "azure-blob-storage-credentials"] {
            for tail in ["", "/block_documents"] {
                let path = format!("/api/block_types/slug/{slug}{tail}");
                t.observe_with_origins("h", &path, SeenCall::default(), &[(3, origin.clone())]);
            }
        }
        assert_eq!(
            tpl(&t, "/api/block_types/slug/aws-credentials/block_documents"),
            "/api/block_types/slug/{slug}/block_documents"
        );
        let explained = t
            .explain("h", "/api/block_types/slug/aws-credentials")
            .to_string();
        assert!(explained.contains("[3] {slug}:"), "{explained}");
        // A word seen as a key's value stays a name there.
        let key = Origin {
            field_path: "$.tags[].key".into(),
            name: "key".into(),
            use_name: true,
        };
        let mut t = Templater::default();
        t.observe_with_origins("h", "/api/demo/generate", SeenCall::default(), &[(1, key)]);
        assert_eq!(tpl(&t, "/api/demo/generate"), "/api/demo/generate");
    }

    /// Class: word-valued ids. Names of lists come in kinds, most of a
    /// group plural; one value among singular ones that happens to end in
    /// `s` is a value like them, in a namespace too.
    #[test]
    fn a_word_ending_in_s_among_singular_values_is_a_value() {
        let mut t = Templater::default();
        for value in ["atlas", "beta", "delta"] {
            t.observe("h", &format!("/mimic/agent/7/value/oid/{value}"), Some(4));
        }
        assert_eq!(
            tpl(&t, "/mimic/agent/7/value/oid/atlas"),
            "/mimic/agent/7/value/oid/{oid}"
        );
        assert_explains(
            &t,
            "/mimic/agent/7/value/oid/atlas",
            "{oid}: 3 distinct leaf literals that answered alike",
        );
        // Plural words alike with one singular stay names of lists.
        let mut t = Templater::default();
        for list in ["users", "orders", "config"] {
            t.observe("h", &format!("/v1/{list}"), Some(4));
        }
        assert_eq!(tpl(&t, "/v1/users"), "/v1/users");
        assert_eq!(tpl(&t, "/v1/orders"), "/v1/orders");
    }

    /// Class: single values seen twice. Two slugs that answer alike
    /// themselves and lead to the same child, which answers alike too, are
    /// two pieces of evidence: values, even in a namespace.
    /// Class: RPC method names. Operations named after one another
    /// (`gender`, `genderBatch`, `origin`, `originBatch`) stay names however
    /// alike they answer; a lone name with a word added is not a family.
    #[test]
    fn a_family_of_names_built_from_one_another_stays_literal() {
        let mut t = Templater::default();
        for name in ["gender", "origin", "religionFull", "country"] {
            t.observe("h", &format!("/api/json/{name}"), Some(1));
            t.observe("h", &format!("/api/json/{name}Batch"), Some(2));
        }
        for name in ["castegroupBatch", "pinyinNameBatch", "subclassBatch"] {
            t.observe("h", &format!("/api/json/{name}"), Some(2));
        }
        assert_eq!(tpl(&t, "/api/json/originBatch"), "/api/json/originBatch");
        assert_eq!(
            tpl(&t, "/api/json/subclassBatch"),
            "/api/json/subclassBatch"
        );
        assert_eq!(
            literal_reason(&t, "/api/json/gender", 2).to_string(),
            "a name of a family: 4 sibling names are named again with `Batch` added"
        );
        // Values that are numbered copies of each other fold as values do.
        let mut t = Templater::default();
        for slug in ["harbor", "harbor-2", "cedar", "cedar-2", "maple"] {
            t.observe("h", &format!("/posts/{slug}"), Some(1));
        }
        assert_eq!(tpl(&t, "/posts/harbor-2"), "/posts/{post}");
    }

    /// Class: namespace groups. In a namespace, paths meet by answering
    /// alike only when both are values alone: a word's leaf (`/sigusd/price`)
    /// that answers as another name's id does (`/cancelbabel/{id}`) makes
    /// no two of them values, and the relation is the same read either way.
    #[test]
    fn a_name_meets_another_by_answer_only_through_values_on_both_sides() {
        let mut t = Templater::default();
        for (i, id) in [34086946, 41787474, 51015530].iter().enumerate() {
            t.observe("h", &format!("/cancelbabel/{id}"), Some(7));
            t.observe("h", &format!("/sigrsv/exchange/{}/info", 189 + i), Some(8));
            t.observe("h", &format!("/sigusd/exchange/{}/info", 493 + i), Some(8));
        }
        for root in ["sigrsv", "sigusd"] {
            t.observe("h", &format!("/{root}/price"), Some(7));
        }
        assert_eq!(tpl(&t, "/sigusd/price"), "/sigusd/price");
        assert_eq!(
            tpl(&t, "/cancelbabel/80717473"),
            "/cancelbabel/{cancelbabelId}"
        );
    }

    #[test]
    fn two_values_that_answer_alike_and_lead_alike_fold() {
        let mut t = Templater::default();
        for slug in ["local-file-system", "slack-webhook"] {
            t.observe("h", &format!("/api/block_types/slug/{slug}"), Some(1));
            let documents = format!("/api/block_types/slug/{slug}/block_documents");
            t.observe("h", &documents, Some(2));
        }
        assert_eq!(
            tpl(&t, "/api/block_types/slug/secret/block_documents"),
            "/api/block_types/slug/{slug}/block_documents"
        );
        // Names that lead to one alike child but answer each in its own
        // shape stay names.
        let mut t = Templater::default();
        for (i, name) in ["billing", "shipping"].iter().enumerate() {
            t.observe("h", &format!("/api/settings/{name}"), Some(10 + i as u64));
            t.observe("h", &format!("/api/settings/{name}/history"), Some(2));
        }
        assert_eq!(tpl(&t, "/api/settings/billing"), "/api/settings/billing");
    }

    #[test]
    fn leaves_that_follow_several_values_are_operations_on_them() {
        // After ids the trie merged, `cancel` and `retry` answer as the job
        // does: operations on a job, not values of a second parameter.
        let mut t = Templater::default();
        for id in [101, 202, 303, 404] {
            t.observe("h", &format!("/jobs/{id}"), Some(1));
        }
        for (id, action) in [
            (101, "cancel"),
            (202, "cancel"),
            (303, "retry"),
            (404, "retry"),
        ] {
            t.observe("h", &format!("/jobs/{id}/{action}"), Some(1));
        }
        assert_eq!(tpl(&t, "/jobs/101/cancel"), "/jobs/{jobId}/cancel");
        assert_eq!(tpl(&t, "/jobs/404/retry"), "/jobs/{jobId}/retry");
        assert_eq!(
            literal_reason(&t, "/jobs/404/retry", 2),
            KeptReason::AfterSeveral
        );

        // After names folded into a parameter: a leaf that follows several
        // of them is an operation, whatever it answers.
        let mut t = Templater::default();
        for f in ["resize-image", "send-mail", "index-docs", "bill-orders"] {
            t.observe("h", &format!("/functions/{f}"), Some(1));
            t.observe("h", &format!("/functions/{f}/versions"), Some(2));
        }
        for f in ["resize-image", "send-mail", "index-docs"] {
            t.observe("h", &format!("/functions/{f}/configuration"), Some(3));
            t.observe("h", &format!("/functions/{f}/code"), Some(3));
        }
        assert_eq!(
            tpl(&t, "/functions/send-mail/configuration"),
            "/functions/{function}/configuration"
        );
        assert_eq!(
            tpl(&t, "/functions/send-mail/code"),
            "/functions/{function}/code"
        );

        // A leaf after one value each is a value itself: `/repos/{owner}/{repo}`.
        let mut t = Templater::default();
        for (owner, repo) in [
            ("alice", "dotfiles"),
            ("bob", "website"),
            ("carol", "notebook"),
            ("dave", "compiler"),
        ] {
            t.observe("h", &format!("/repos/{owner}/{repo}"), Some(7));
        }
        assert_eq!(tpl(&t, "/repos/bob/website"), "/repos/{owner}/{repo}");
    }

    #[test]
    fn a_custom_method_after_an_id_is_its_own_operation() {
        let mut t = Templater::default();
        for project in ["alpha", "beta", "gamma"] {
            for instance in ["web-1", "db-2", "cache-3"] {
                let item = format!("/v1/projects/{project}/instances/{instance}");
                t.observe("h", &item, Some(1));
                t.observe("h", &format!("{item}:start"), Some(2));
                t.observe("h", &format!("{item}:stop"), Some(2));
            }
            let batch = format!("/v1/projects/{project}/instances:batchGet");
            t.observe("h", &batch, Some(3));
        }
        let item = "/v1/projects/{project}/instances/{instance}";
        assert_eq!(tpl(&t, "/v1/projects/beta/instances/db-2"), item);
        assert_eq!(
            tpl(&t, "/v1/projects/beta/instances/db-2:start"),
            format!("{item}:start")
        );
        assert_eq!(
            tpl(&t, "/v1/projects/gamma/instances/web-1:stop"),
            format!("{item}:stop")
        );
        assert_eq!(
            tpl(&t, "/v1/projects/alpha/instances:batchGet"),
            "/v1/projects/{project}/instances:batchGet"
        );
        // Only the last segment has a method; a colon elsewhere is part of a value.
        t.observe("h", "/v1/projects/alpha/instances/web-1:9090/logs", Some(4));
        assert_eq!(
            tpl(&t, "/v1/projects/alpha/instances/web-1:9090/logs"),
            "/v1/projects/{project}/instances/web-1:9090/logs"
        );
    }

    #[test]
    fn file_paths_of_several_depths_are_one_rest_parameter() {
        let mut t = Templater::default();
        for file in [
            "README.md",
            "src/main.rs",
            "src/lib/util.rs",
            "docs/guide/intro.txt",
        ] {
            t.observe("h", &format!("/api/projects/42/raw/{file}"), Some(1));
        }
        t.observe("h", "/api/projects/42", Some(2));
        t.observe("h", "/api/projects/43", Some(2));
        for path in [
            "/api/projects/42/raw/src/lib/util.rs",
            "/api/projects/43/raw/a.txt",
        ] {
            assert_eq!(tpl(&t, path), "/api/projects/{projectId}/raw/{path}");
        }
        let explained = t.explain("h", "/api/projects/42/raw/src/main.rs");
        let Some(Decision::Param { name, evidence, .. }) = explained.decisions.last() else {
            panic!("{explained:?}");
        };
        assert_eq!(name, "path");
        assert_eq!(
            evidence.rule,
            Rule::FileTree {
                files: 4,
                depths: 3
            }
        );
        assert_eq!(
            evidence.rule.to_string(),
            "the rest of the path: 4 paths of 3 depths below here all end in a file name"
        );
        assert!(
            t.template("h", "/api/projects/42/raw/README.md")
                .params()
                .any(|p| p.rest)
        );

        // Paths that all answer in an API's format are operations, not files.
        let mut t = Templater::default();
        for path in [
            "/t/latest.json",
            "/t/top/weekly.json",
            "/t/top/monthly.json",
        ] {
            t.observe("h", path, Some(1));
        }
        assert_eq!(tpl(&t, "/t/latest.json"), "/t/latest.json");
        // Names that all have two dots or more are host names: a file has
        // one extension.
        let mut t = Templater::default();
        for path in [
            "/domains/cedar.example.com",
            "/domains/orion.globex.com",
            "/domains/verify/beta.initech.net",
            "/domains/verify/delta.contoso.org",
        ] {
            t.observe("h", path, Some(1));
        }
        assert!(!(t.template("h", "/domains/verify/beta.initech.net").params()).any(|p| p.rest));
        // A leaf without an extension is an operation: no tree.
        let mut t = Templater::default();
        for path in ["/files/a.txt", "/files/docs/b.md", "/files/docs/c.md"] {
            t.observe("h", path, Some(1));
        }
        t.observe("h", "/files/search", Some(2));
        assert_eq!(tpl(&t, "/files/search"), "/files/search");
        assert!(!t.template("h", "/files/docs/b.md").params().any(|p| p.rest));
    }

    /// A path that only ever answered 404 beside a parameter's values names
    /// nothing: it is one more value (one not found), not a route of its
    /// own. A word that answered stays a name.
    #[test]
    fn a_leaf_not_found_beside_values_is_one_of_them() {
        let call = |shape, status| SeenCall {
            shape: Some(AnswerShape::exact(shape)),
            query: None,
            method: Some("GET"),
            status: Some(status),
        };
        let mut t = Templater::default();
        for id in ["31", "32", "33"] {
            t.observe_with_origins("h", &format!("/api/notes/{id}"), call(1, 200), &[]);
        }
        t.observe_with_origins("h", "/api/notes/test", call(2, 404), &[]);
        t.observe_with_origins("h", "/api/notes/search", call(3, 200), &[]);
        assert_eq!(tpl(&t, "/api/notes/test"), "/api/notes/{noteId}");
        assert_explains(&t, "/api/notes/test", "a value that was not found");
        assert_eq!(tpl(&t, "/api/notes/search"), "/api/notes/search");
        // Once it answers, it is no longer known to be missing.
        t.observe_with_origins("h", "/api/notes/test", call(2, 200), &[]);
        assert_eq!(tpl(&t, "/api/notes/test"), "/api/notes/test");
    }

    /// Class: identifiers with punctuation. A package in a scope
    /// (`@scope/name`, npm's spelling) is one value of two segments, its own
    /// colon part of it; words that follow every handle (`/@ann/followers`)
    /// and names that answer unlike are no names in a scope.
    #[test]
    fn names_in_a_scope_are_one_value_of_two_segments() {
        let mut t = Templater::default();
        for name in [
            "@acme/editor-plugin:settings",
            "@acme/ui-kit:theme",
            "@acme/ui-kit:plugin",
            "@tools/lint:rules",
            "ui-kit:theme",
        ] {
            t.observe("h", &format!("/lab/api/settings/{name}"), Some(7));
        }
        for path in [
            "/lab/api/settings/@acme/ui-kit:theme",
            "/lab/api/settings/ui-kit:theme",
        ] {
            assert_eq!(tpl(&t, path), "/lab/api/settings/{settings}");
            assert!(t.template("h", path).params().any(|p| p.rest));
            assert_explains(
                &t,
                path,
                "one scoped name (@scope/name): 5 names in 2 scope(s) below here answered alike",
            );
        }

        // The same words after several handles: values, then names.
        let mut t = Templater::default();
        for handle in ["@ann", "@bob", "@cy"] {
            t.observe("h", &format!("/u/{handle}/followers"), Some(8));
            t.observe("h", &format!("/u/{handle}/posts"), Some(9));
        }
        assert!(!t.template("h", "/u/@ann/posts").params().any(|p| p.rest));
        // Names in a scope that answer unlike are the API's own.
        let mut t = Templater::default();
        t.observe("h", "/pkg/@acme/search", Some(8));
        t.observe("h", "/pkg/@acme/stats", Some(9));
        assert_eq!(tpl(&t, "/pkg/@acme/stats"), "/pkg/@acme/stats");
    }

    /// Class: file paths. Where the values end in several extensions, not
    /// all an API's formats and none with two, the extension is part of the
    /// file's name: `data.csv` is a file beside `hello.py`, not `{file}.csv`.
    /// A format chosen per call (`12.json`, `12.xml`) stays a suffix.
    #[test]
    fn extensions_that_vary_among_files_are_part_of_their_names() {
        let mut t = Templater::default();
        for file in ["data.csv", "report.csv", "a.txt", "b.txt"] {
            t.observe("h", &format!("/files/{file}"), Some(7));
        }
        assert_eq!(tpl(&t, "/files/a.txt"), "/files/{file}");
        assert_eq!(tpl(&t, "/files/report.csv"), "/files/{file}");
        assert_explains(
            &t,
            "/files/a.txt",
            "[1] {file}: file names, extension included (2 extensions among the values)",
        );
        let explained = t.explain("h", "/files/a.txt");
        let Some(Decision::Param { evidence, .. }) = explained.decisions.last() else {
            panic!("{explained:?}");
        };
        assert!(evidence.values.iter().any(|v| v == "a"), "{evidence:?}");

        let mut t = Templater::default();
        for path in ["/reports/12.json", "/reports/12.xml", "/reports/13.json"] {
            t.observe("h", path, Some(1));
        }
        assert_eq!(tpl(&t, "/reports/13.json"), "/reports/{reportId}.json");
        assert_eq!(tpl(&t, "/reports/12.xml"), "/reports/{reportId}.xml");
    }

    /// Among file names, a file deleted or written with no answer of its
    /// own, with one of their extensions, is one more of them; a name that
    /// answered in a shape of its own stays a name.
    #[test]
    fn a_silent_file_beside_file_names_is_one_of_them() {
        let call = |method, shape: u64, status| SeenCall {
            shape: (shape > 0).then(|| AnswerShape::exact(shape)),
            query: None,
            method: Some(method),
            status: Some(status),
        };
        let mut t = Templater::default();
        for file in ["report.csv", "a.txt", "hello.py"] {
            t.observe_with_origins("h", &format!("/files/{file}"), call("GET", 6, 200), &[]);
        }
        t.observe_with_origins("h", "/files/b.txt", call("DELETE", 0, 204), &[]);
        t.observe_with_origins("h", "/files/index.py", call("GET", 9, 200), &[]);
        assert_eq!(tpl(&t, "/files/b.txt"), "/files/{file}");
        assert_explains(
            &t,
            "/files/b.txt",
            "[1] {file}: a file name like the values (.txt), with no answer of its own",
        );
        assert_eq!(tpl(&t, "/files/index.py"), "/files/index.py");
    }

    /// Sibling names whose children line up: a database's two tables are
    /// values where another database's three tables folded, for they lead
    /// where those lead (`.json`, `.csv`, an id) and answer alike them. Two
    /// children that lead elsewhere stay names.
    #[test]
    fn children_that_line_up_with_a_siblings_values_are_values() {
        // A table's rows answer alike any table's: the same envelope, other
        // columns (one leaf each here).
        let like = |fingerprint, leaves| SeenCall {
            shape: Some(AnswerShape::with_leaves(fingerprint, leaves)),
            query: None,
            method: Some("GET"),
            status: Some(200),
        };
        let (table, row) = (0b1111_1111_1100u128, 0b1111_0000_0000_1111u128 << 20);
        let mut t = Templater::default();
        for db in ["shop", "crm"] {
            t.observe("h", &format!("/{db}.json"), Some(1));
        }
        for (name, id) in [("inventory", 3141), ("staff", 2718), ("stock", 1618)] {
            let (path, item) = (
                format!("/shop/{name}.json"),
                format!("/shop/{name}/{id}.json"),
            );
            t.observe_with_origins("h", &path, like(2, table), &[]);
            t.observe_with_origins("h", &item, like(3, row), &[]);
        }
        t.observe("h", "/shop/stock.csv", Some(4));
        // Two tables of other columns: alike the first database's, equal to
        // nothing; alone, two such could be two operations of one kind.
        for (name, id, column) in [("pipeline", 4747, 1u128), ("outreach", 5858, 2)] {
            let (path, item) = (
                format!("/crm/{name}.json"),
                format!("/crm/{name}/{id}.json"),
            );
            t.observe_with_origins("h", &path, like(20 + id, table | column), &[]);
            t.observe_with_origins("h", &item, like(30 + id, row | column), &[]);
        }
        assert_eq!(tpl(&t, "/shop/staff.json"), "/shop/{shop}.json");
        assert_eq!(tpl(&t, "/crm/outreach.json"), "/crm/{crm}.json");
        assert_eq!(
            tpl(&t, "/crm/pipeline/4747.json"),
            "/crm/{crm}/{crmId}.json"
        );
        assert_explains(
            &t,
            "/crm/outreach.json",
            "[1] {crm}: names that lead where the values below `shop` lead, and answer alike them",
        );
        // Children that lead elsewhere are the API's own names.
        t.observe("h", "/admin/users/search", Some(5));
        t.observe("h", "/admin/roles/grant", Some(6));
        assert_eq!(tpl(&t, "/admin/users/search"), "/admin/users/search");
    }

    /// Class: file paths with a sub-resource after the file. An operation
    /// right after a file name (`checkpoints`) ends the path; the file's
    /// path before it, of any depth, is the one rest parameter.
    #[test]
    fn operations_after_a_file_follow_the_rest_of_the_path() {
        let mut t = Templater::default();
        t.observe("h", "/api/contents", Some(1));
        t.observe("h", "/api/contents/data", Some(1));
        for file in [
            "hello.py",
            "data/x.csv",
            "Untitled.ipynb",
            "data/deep/b.ipynb",
        ] {
            t.observe("h", &format!("/api/contents/{file}"), Some(1));
        }
        for file in ["Untitled.ipynb", "data/deep/b.ipynb", "data/notes.txt"] {
            t.observe("h", &format!("/api/contents/{file}/checkpoints"), Some(2));
        }
        assert_eq!(tpl(&t, "/api/contents/hello.py"), "/api/contents/{path}");
        assert_eq!(
            tpl(&t, "/api/contents/data/x.csv/checkpoints"),
            "/api/contents/{path}/checkpoints"
        );
        assert_eq!(
            tpl(&t, "/api/contents/data/notes.txt/checkpoints"),
            "/api/contents/{path}/checkpoints"
        );
        assert_eq!(
            tpl(&t, "/api/contents/data/deep/b.ipynb/checkpoints/"),
            "/api/contents/{path}/checkpoints/"
        );
        // An operation may lead on (`checkpoints/{checkpoint}`): what
        // follows it is templated in its own view.
        for (file, checkpoint) in [("hello.py", "a1"), ("data/x.csv", "b2"), ("hello.py", "c3")] {
            let path = format!("/api/contents/{file}/checkpoints/{checkpoint}");
            t.observe("h", &path, Some(4));
        }
        assert_eq!(tpl(&t, "/api/contents/data/x.csv"), "/api/contents/{path}");
        assert_eq!(
            tpl(&t, "/api/contents/data/deep/b.ipynb/checkpoints/a1"),
            "/api/contents/{path}/checkpoints/{checkpoint}"
        );
        assert_eq!(
            tpl(&t, "/api/contents/Untitled.ipynb/checkpoints"),
            "/api/contents/{path}/checkpoints"
        );
        // A word after a directory is no operation on a file: no tree.
        t.observe("h", "/api/contents/data/search", Some(3));
        assert_eq!(tpl(&t, "/api/contents/hello.py"), "/api/contents/hello.py");
    }

    #[test]
    fn locales_vary_as_values_and_a_fixed_one_is_a_prefix() {
        let mut t = Templater::default();
        for (id, locale) in [(7, "en-US"), (8, "fr-FR"), (9, "pt_BR")] {
            t.observe(
                "h",
                &format!("/recipients/{id}/disclosure/{locale}"),
                Some(1),
            );
        }
        assert_eq!(
            tpl(&t, "/recipients/7/disclosure/de-DE"),
            "/recipients/{recipientId}/disclosure/{locale}"
        );
        let mut t = Templater::default();
        for path in [
            "/en-US/api/products",
            "/en-US/api/cart",
            "/en-US/api/orders/5",
        ] {
            t.observe("h", path, Some(1));
        }
        assert_eq!(tpl(&t, "/en-US/api/cart"), "/en-US/api/cart");
        assert!(matches!(
            literal_reason(&t, "/en-US/api/cart", 0),
            KeptReason::Constant { .. }
        ));
    }
}
