//! The raw trie of observed paths per host, and the [`Templater`] facade.
//!
//! The raw trie only grows: counts add and sets union, so its content is a
//! function of the set of observed paths (below the caps). Decisions live in
//! the view ([`super::view`]), rebuilt from it when it gains structure.

use std::collections::HashMap;

use super::view::{self, ViewNode};
use super::{
    AnswerShape, Decision, Explanation, KeptReason, Overrides, PathTemplate, Segment, SegmentKind,
    SegmentSuffix, classify_segment, format_suffix, is_format_token, split_path, split_suffix,
};

/// Limits and thresholds of the templater.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct TemplaterConfig {
    /// Distinct literal children kept per trie node; beyond it the position
    /// folds into a parameter (bounds memory).
    pub max_literals_per_node: usize,
    /// Leaf literals sharing a response shape needed to fold by cardinality.
    pub cardinality_threshold: usize,
    /// Segments beyond this depth are all treated as one literal-free tail.
    pub max_depth: usize,
}

impl Default for TemplaterConfig {
    fn default() -> Self {
        Self {
            max_literals_per_node: 64,
            cardinality_threshold: 3,
            max_depth: 32,
        }
    }
}

/// Where a literal value was seen in a body before it appeared in a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Origin {
    pub(crate) field_path: String,
    pub(crate) name: String,
    /// Whether `name` fits this path (a generic field like `$.items[].name`
    /// only names a segment after a matching collection, `/items/...`).
    pub(crate) use_name: bool,
}

impl Origin {
    /// Whether the field holds identifiers by its name (`$.orders[].id`,
    /// `$.user_id`, `$[].slug`), not names or keys (`$.tags[].key`).
    pub(crate) fn is_id_field_value(&self) -> bool {
        let key = self
            .field_path
            .rsplit(['.', '['])
            .next()
            .unwrap_or_default();
        super::is_identifier_field(key)
    }
}

const MAX_VALUES: usize = 8;
const MAX_SHAPES: usize = 4;

#[derive(Debug, Default, Clone)]
pub(crate) struct RawNode {
    /// Literal children sorted by text: a vector, so one binary search finds
    /// a child or the place for a new one (every flow does one per segment).
    /// Only segments [`classify_segment`] leaves unclassified are literals.
    pub(crate) literals: Vec<(Box<str>, RawNode)>,
    pub(crate) param: Option<Box<RawNode>>,
    /// Bitset of [`SegmentKind`]s seen at this node (param nodes only).
    pub(crate) kinds: u16,
    /// Some classified or overflowed values seen at this node (param nodes only).
    pub(crate) values: Vec<Box<str>>,
    pub(crate) count: u64,
    pub(crate) terminal: u64,
    /// Response shapes of flows ending here (sorted by fingerprint, capped).
    pub(crate) shapes: Vec<AnswerShape>,
    /// Literals refused because the cap was reached.
    pub(crate) overflowed: u64,
    pub(crate) origin: Option<Box<Origin>>,
    pub(crate) pinned: bool,
    /// Set on a literal child that is a weak value ([`SegmentKind::is_weak`]):
    /// kept apart with its own subtree so the view can tell a version from
    /// an id by what follows it.
    pub(crate) value_kind: Option<SegmentKind>,
    /// On a literal directly below a parameter: which of that parameter's
    /// values it followed, as up to two distinct [`value_hash`]es (0: none).
    /// The trie merges the values, so without this the view could not tell
    /// an operation on them (`/jobs/{id}/cancel`, after many ids) from a
    /// word that changes with each (`/tokens/{id}/<its name>`).
    pub(crate) after: [u32; 2],
    /// The query parameter names flows ending here sent, one bit of 64
    /// each ([`query_bits`]): calls of one operation send the same names.
    pub(crate) query: u64,
    /// The query parameter names every flow ending here sent (bits as in
    /// [`RawNode::query`]): an operation's required parameters.
    pub(crate) always: u64,
    /// The methods of flows ending here ([`method_bit`]): PUT, DELETE and
    /// PATCH act on the resource a path names.
    pub(crate) methods: u8,
    /// What flows ending here answered ([`status_bit`]): a path only ever
    /// answered 404 names nothing that exists.
    pub(crate) statuses: u8,
}

impl RawNode {
    /// Whether no path goes on below this node: no children, or only
    /// suffixes with nothing after them (`/tags/docker.json` ends at
    /// `docker`, `/instances/i1:start` at `i1`).
    pub(crate) fn is_leaf(&self) -> bool {
        self.param.is_none()
            && (self.literals.iter())
                .all(|(text, child)| format_suffix(text).is_some() && child.is_leaf())
    }

    /// The response shapes of flows that ended here, with or without a
    /// format suffix (`/u/ann` and `/u/ann.json` both answer for `ann`).
    pub(crate) fn answer_shapes(&self) -> impl Iterator<Item = AnswerShape> + '_ {
        let suffixed = (self.literals.iter())
            .filter(|(text, _)| is_format_token(text))
            .flat_map(|(_, child)| &child.shapes);
        self.shapes.iter().chain(suffixed).copied()
    }

    /// The distinct values of the parameter before that this literal
    /// followed (at most two: one, or several).
    pub(crate) fn values_before(&self) -> impl Iterator<Item = u32> + '_ {
        self.after.iter().copied().filter(|h| *h != 0)
    }

    /// Records that this literal followed the parameter value hashed
    /// `hash`; returns whether that was news.
    fn follows(&mut self, hash: u32) -> bool {
        match self.after {
            [0, _] => self.after[0] = hash,
            [first, 0] if first != hash => self.after[1] = hash,
            _ => return false,
        }
        true
    }

    fn heap_bytes(&self) -> usize {
        let own = self.values.iter().map(|v| v.len() + 16).sum::<usize>()
            + self.shapes.capacity() * std::mem::size_of::<AnswerShape>()
            + self
                .origin
                .as_ref()
                .map_or(0, |o| 64 + o.field_path.len() + o.name.len());
        let children: usize = self
            .literals
            .iter()
            .map(|(k, c)| k.len() + 48 + std::mem::size_of::<RawNode>() + c.heap_bytes())
            .sum();
        own + children
            + self
                .param
                .as_ref()
                .map_or(0, |p| std::mem::size_of::<RawNode>() + p.heap_bytes())
    }
}

/// Where literal `segment` is in sorted `literals`, or where it would go.
fn find_literal(literals: &[(Box<str>, RawNode)], segment: &str) -> Result<usize, usize> {
    // Siblings mostly differ in their first byte (`orders`, `products`,
    // `users`), which then orders them as the whole text would: only a
    // shared first byte needs the full comparison (a call to memcmp).
    let first = segment.as_bytes().first();
    literals.binary_search_by(|(text, _)| match (text.as_bytes().first(), first) {
        (Some(a), Some(b)) if a != b => a.cmp(b),
        _ => (**text).cmp(segment),
    })
}

pub(crate) fn kind_bit(kind: SegmentKind) -> u16 {
    1 << (kind as u16)
}

pub(crate) fn kinds_of(bits: u16) -> Vec<SegmentKind> {
    use SegmentKind::*;
    [
        Integer,
        Uuid,
        Hex,
        Date,
        Timestamp,
        Email,
        PrefixedId,
        Sid,
        OpaqueToken,
        IssueKey,
        Ip,
        Encoded,
        Version,
        Locale,
        List,
        Pair,
    ]
    .into_iter()
    .filter(|k| bits & kind_bit(*k) != 0)
    .collect()
}

#[derive(Debug, Default)]
struct HostTrie {
    raw: RawNode,
    view: ViewNode,
    /// Shape keys by layer-1 form of the path (see [`push_layer1`]), valid
    /// for the current `view` only: cleared whenever it is rebuilt.
    shape_keys: HashMap<Box<str>, Box<str>, foldhash::fast::FixedState>,
}

/// Shape keys cached per host; beyond it the cache starts over (memory stays bounded).
const MAX_CACHED_SHAPES: usize = 256;

impl HostTrie {
    fn rebuild(&mut self, cfg: &TemplaterConfig) {
        self.view = view::build_root(&self.raw, cfg);
        self.shape_keys.clear();
    }
}

/// Appends one segment's layer-1 form to `key`: `/` + `\u{1}` + a letter
/// per [`SegmentKind`] for a classified segment, `/` + `\u{2}` + the text
/// for a literal or a weak value (callers pass no kind for those). The
/// view's walk depends on nothing else (a classified segment that is not
/// weak never matches a literal child), so paths with equal layer-1 keys
/// have equal shape keys under the same view.
fn push_layer1(key: &mut String, segment: &str, kind: Option<SegmentKind>) {
    match kind {
        Some(kind) => {
            key.push_str("/\u{1}");
            key.push(char::from(b'a' + kind as u8));
        }
        None => {
            key.push_str("/\u{2}");
            key.push_str(segment);
        }
    }
}

/// Learns path templates per host from observed paths.
///
/// `observe` every path (with an optional response shape fingerprint), then
/// ask for the `template` of any observed path. Results depend only on the
/// set of observed paths, not their order (within the caps).
///
/// ```
/// use ar_store::template::Templater;
/// let mut t = Templater::default();
/// for path in ["/repos/rust-lang/cargo/issues", "/repos/tokio-rs/tokio/issues", "/users/me", "/users/42"] {
///     t.observe("api.test", path, None);
/// }
/// assert_eq!(t.template("api.test", "/repos/rust-lang/cargo/issues").to_string(), "/repos/{owner}/{repo}/issues");
/// assert_eq!(t.template("api.test", "/users/me").to_string(), "/users/me");
/// assert_eq!(t.template("api.test", "/users/7").to_string(), "/users/{userId}");
/// ```
#[derive(Debug, Default)]
pub struct Templater {
    config: TemplaterConfig,
    /// Tries by host: hashed, as every flow looks its host up (hosts of one
    /// site share a long suffix, and often a prefix, which a sorted map
    /// compares again at every step).
    hosts: HashMap<String, HostTrie, foldhash::fast::FixedState>,
    /// Reused buffer for the layer-1 key of the observed path.
    layer1: String,
    /// User templates: a path matching one is templated by it, not learnt.
    overrides: Overrides,
    /// Flows observed per override, in its order.
    override_hits: Vec<u64>,
}

impl Templater {
    /// A templater with the given limits.
    pub fn new(config: TemplaterConfig) -> Self {
        Self {
            config,
            hosts: HashMap::default(),
            layer1: String::new(),
            overrides: Overrides::default(),
            override_hits: Vec::new(),
        }
    }

    /// This templater with user templates (see [`Templater::set_overrides`]).
    pub fn with_overrides(mut self, overrides: Overrides) -> Self {
        self.set_overrides(overrides);
        self
    }

    /// Sets the user templates: a path matching one of them is templated by
    /// it whatever the learnt rules say ([`Overrides`]), and is not
    /// learnt from. Returns whether templates may have changed (the paths
    /// held so far are not re-templated: set them before observing).
    ///
    /// ```
    /// use ar_store::template::{Overrides, Templater};
    /// let mut t = Templater::default();
    /// assert!(t.set_overrides(Overrides::parse(["/api/files/{path*}"]).unwrap()));
    /// t.observe("h", "/api/files/a/b.txt", None);
    /// assert_eq!(t.template("h", "/api/files/a/b.txt").to_string(), "/api/files/{path}");
    /// ```
    pub fn set_overrides(&mut self, overrides: Overrides) -> bool {
        if overrides == self.overrides {
            return false;
        }
        self.override_hits = vec![0; overrides.len()];
        self.overrides = overrides;
        true
    }

    /// The user templates in use.
    pub fn overrides(&self) -> &Overrides {
        &self.overrides
    }

    /// Counts a flow for the override `path` matches, if one does.
    fn observe_override(&mut self, host: &str, path: &str) -> Option<usize> {
        let at = self.overrides.find(host, path)?;
        self.override_hits[at] += 1;
        if !self.hosts.contains_key(host) {
            self.hosts.insert(host.to_string(), HostTrie::default());
        }
        Some(at)
    }

    /// Records one observed path; returns whether templates of `host` may
    /// have changed (the caller should then re-template what it holds).
    pub fn observe(&mut self, host: &str, path: &str, shape: Option<u64>) -> bool {
        let call = SeenCall {
            shape: shape.map(AnswerShape::exact),
            query: None,
            method: None,
            status: None,
        };
        self.observe_with_origins(host, path, call, &[])
    }

    /// Like [`Templater::observe`], marking segments (by position) whose
    /// literal value was seen earlier in a body.
    pub(crate) fn observe_with_origins(
        &mut self,
        host: &str,
        path: &str,
        call: SeenCall<'_>,
        origins: &[(usize, Origin)],
    ) -> bool {
        if self.observe_override(host, path).is_some() {
            return false;
        }
        let trie = match self.hosts.get_mut(host) {
            Some(t) => t,
            None => self.hosts.entry(host.to_string()).or_default(),
        };
        observe_in(trie, &self.config, path, call, origins, &mut self.layer1)
    }

    /// [`Templater::observe_with_origins`], then the shape key of `path`
    /// written into `key` (what [`Templater::shape_key`] gives): the
    /// segments are classified once, and the view is walked only for a
    /// layer-1 form of path not seen since the view last changed.
    pub(crate) fn observe_shape_key_into(
        &mut self,
        host: &str,
        path: &str,
        call: SeenCall<'_>,
        origins: &[(usize, Origin)],
        key: &mut String,
    ) -> bool {
        // Before the cache: it is keyed by the layer-1 form, which an
        // override does not follow.
        if let Some(at) = self.observe_override(host, path) {
            override_key_into(at, path, key);
            return false;
        }
        let trie = match self.hosts.get_mut(host) {
            Some(t) => t,
            None => self.hosts.entry(host.to_string()).or_default(),
        };
        let changed = observe_in(trie, &self.config, path, call, origins, &mut self.layer1);
        key.clear();
        match trie.shape_keys.get(self.layer1.as_str()) {
            Some(cached) => key.push_str(cached),
            None => {
                view::shape_key_into(&trie.view, path, key);
                if trie.shape_keys.len() >= MAX_CACHED_SHAPES {
                    trie.shape_keys.clear();
                }
                trie.shape_keys
                    .insert(self.layer1.as_str().into(), key.as_str().into());
            }
        }
        changed
    }

    /// The template of `path` on `host` (an unobserved path gets its layer-1 template).
    pub fn template(&self, host: &str, path: &str) -> PathTemplate {
        if let Some(at) = self.overrides.find(host, path) {
            return (self.overrides).template_at(at, path, self.override_hits[at]);
        }
        let empty = ViewNode::default();
        let view = self.hosts.get(host).map_or(&empty, |t| &t.view);
        view::template(view, path)
    }

    /// A compact key of the template shape (`/users/\u{1}/orders`), cheaper
    /// than [`Templater::template`]; equal keys mean equal templates.
    pub(crate) fn shape_key(&self, host: &str, path: &str) -> String {
        if let Some(at) = self.overrides.find(host, path) {
            let mut key = String::new();
            override_key_into(at, path, &mut key);
            return key;
        }
        let empty = ViewNode::default();
        let view = self.hosts.get(host).map_or(&empty, |t| &t.view);
        view::shape_key(view, path)
    }

    /// Every decision behind the template of `path` on `host`.
    pub fn explain(&self, host: &str, path: &str) -> Explanation {
        if let Some(at) = self.overrides.find(host, path) {
            let pattern = self.overrides.pattern(at).as_str();
            let template = (self.overrides).template_at(at, path, self.override_hits[at]);
            let decisions = (template.segments.iter().enumerate())
                .map(|(position, segment)| match segment {
                    Segment::Literal(value) => Decision::Literal {
                        position,
                        value: value.clone(),
                        reason: KeptReason::Override {
                            pattern: pattern.to_string(),
                        },
                    },
                    Segment::Param(p) => Decision::Param {
                        position,
                        name: p.name.clone(),
                        evidence: p.evidence.clone(),
                    },
                })
                .collect();
            return Explanation {
                template: template.to_string(),
                decisions,
            };
        }
        let empty = ViewNode::default();
        let view = self.hosts.get(host).map_or(&empty, |t| &t.view);
        view::explain(view, path)
    }

    /// Splits a fold: pins the trie nodes that hold position `position` of
    /// `path` so their literals stay literal. Returns whether anything changed.
    pub fn pin(&mut self, host: &str, path: &str, position: usize) -> bool {
        let Some(trie) = self.hosts.get_mut(host) else {
            return false;
        };
        let (segments, _) = split_path(path);
        let segments: Vec<&str> = segments.collect();
        if position >= segments.len() {
            return false;
        }
        // Pin every raw node that can stand at `position` on the way of this
        // path's template: the literal parent and any parameter parent.
        let mut frontier: Vec<&mut RawNode> = vec![&mut trie.raw];
        let last = segments.len() - 1;
        let tokens = segments[..position]
            .iter()
            .enumerate()
            .flat_map(|(i, segment)| {
                let (stem, suffix) = split_suffix(segment, i == last);
                std::iter::once(stem.into()).chain(suffix.map(SegmentSuffix::token))
            });
        for segment in tokens {
            let segment: &str = &segment;
            let mut next = Vec::new();
            for node in frontier {
                let RawNode {
                    literals, param, ..
                } = node;
                if let Ok(at) = find_literal(literals, segment) {
                    next.push(&mut literals[at].1);
                }
                if let Some(p) = param.as_deref_mut() {
                    next.push(p);
                }
            }
            frontier = next;
        }
        let mut changed = false;
        for node in frontier {
            changed |= !node.pinned;
            node.pinned = true;
        }
        if changed {
            trie.rebuild(&self.config);
        }
        changed
    }

    /// Hosts with observed paths, sorted.
    pub fn hosts(&self) -> impl Iterator<Item = &str> {
        let mut hosts: Vec<&str> = self.hosts.keys().map(String::as_str).collect();
        hosts.sort_unstable();
        hosts.into_iter()
    }

    /// An estimate of the heap bytes held (raw tries and views).
    pub fn approx_heap_bytes(&self) -> usize {
        self.hosts
            .iter()
            .map(|(h, t)| {
                h.len()
                    + 64
                    + t.raw.heap_bytes()
                    + t.view.heap_bytes()
                    + t.shape_keys
                        .iter()
                        .map(|(k, v)| k.len() + v.len() + 48)
                        .sum::<usize>()
            })
            .sum()
    }
}

/// The shape key of a path that override `at` matches: `\u{3}` and the
/// override's index (no learnt key starts so: they start with `/`), then
/// `/` when the path ends with one. Paths with equal keys have equal templates.
fn override_key_into(at: usize, path: &str, key: &mut String) {
    use std::fmt::Write as _;
    key.clear();
    let _ = write!(key, "\u{3}{at}");
    if split_path(path).1 {
        key.push('/');
    }
}

/// The child of `node` that `segment` (a path segment's stem, or a format
/// marker) leads to, created when new; counts the flow there and appends
/// the segment's layer-1 form to `layer1`. Says whether the child is the
/// node's parameter.
fn descend<'n>(
    node: &'n mut RawNode,
    cfg: &TemplaterConfig,
    segment: &str,
    origin: Option<&Origin>,
    layer1: &mut String,
    changed: &mut bool,
) -> (&'n mut RawNode, bool) {
    // A literal child when the segment is unclassified and known or there
    // is room for it. Literal children are unclassified segments or weak
    // values, so a known one needs no classifying (most segments of most paths).
    let found = find_literal(&node.literals, segment);
    let kind = match found {
        Ok(_) => None,
        Err(_) => classify_segment(segment),
    };
    let weak = kind.filter(|k| k.is_weak(segment));
    push_layer1(layer1, segment, kind.filter(|_| weak.is_none()));
    let literal = match (kind, found) {
        (Some(_), _) if weak.is_none() => None,
        (_, Ok(at)) => Some(at),
        (_, Err(at)) if node.literals.len() < cfg.max_literals_per_node => {
            *changed = true;
            let child = RawNode {
                value_kind: weak,
                ..RawNode::default()
            };
            node.literals.insert(at, (segment.into(), child));
            Some(at)
        }
        (_, Err(_)) => None,
    };
    let child = if let Some(at) = literal {
        let child = &mut node.literals[at].1;
        if let (Some(origin), None) = (origin, &child.origin) {
            child.origin = Some(Box::new(origin.clone()));
            *changed = true;
        }
        (child, false)
    } else {
        if node.param.is_none() {
            *changed = true;
        }
        if kind.is_none() {
            *changed |= node.overflowed == 0;
            node.overflowed += 1;
        }
        let child: &mut RawNode = node.param.get_or_insert_with(Box::default);
        if let Some(kind) = kind {
            *changed |= child.kinds & kind_bit(kind) == 0;
            child.kinds |= kind_bit(kind);
        }
        if child.values.len() < MAX_VALUES && !child.values.iter().any(|v| &**v == segment) {
            child.values.push(segment.into());
            // Pairs are read as two parameters from the third distinct one on.
            *changed |= child.kinds == kind_bit(SegmentKind::Pair)
                && child.values.len() == super::view::MANY_PAIRS;
        }
        (child, true)
    };
    child.0.count += 1;
    child
}

/// A path segment's value as [`RawNode::after`] keeps it: 32 bits of a
/// fixed-seed hash (hashes are compared within one templater only), never
/// 0 (which stands for none).
fn value_hash(segment: &str) -> u32 {
    use std::hash::BuildHasher as _;
    let h = foldhash::fast::FixedState::default().hash_one(segment);
    ((h >> 32) as u32 ^ h as u32).max(1)
}

/// What one call brought besides its path: its answer's shape and its query.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct SeenCall<'a> {
    pub(crate) shape: Option<AnswerShape>,
    /// The query, without the `?`.
    pub(crate) query: Option<&'a str>,
    /// The request method (`GET`), when known.
    pub(crate) method: Option<&'a str>,
    /// The answer's status, when there was one.
    pub(crate) status: Option<u16>,
}

/// [`RawNode::statuses`] bit of an answer that says nothing is there: 404
/// Not Found, 410 Gone (RFC 9110).
pub(crate) const MISSING: u8 = 1;

/// The [`RawNode::statuses`] bit of an answer's status: [`MISSING`], or
/// another answer.
pub(crate) fn status_bit(status: u16) -> u8 {
    match status {
        404 | 410 => MISSING,
        _ => MISSING << 1,
    }
}

/// [`RawNode::methods`] bits of the methods that write the resource a path
/// names (RFC 9110: PUT replaces it, DELETE removes it; PATCH, RFC 5789,
/// modifies it).
pub(crate) const WRITES_RESOURCE: u8 = 0b111;

/// Calls a leaf must have had before the query names all of them sent are
/// taken for its operation's required parameters (`SentNames` in the view).
pub(crate) const REQUIRED_AFTER_CALLS: u64 = 3;
/// Calls a leaf must have had before a name none of them sent says
/// something.
pub(crate) const NEVER_AFTER_CALLS: u64 = 2;
/// Calls two leaves must have had between them before the view sets them
/// apart by a query parameter one always sent and the other never did: an
/// optional parameter a client sends one time in three is on three calls
/// and off three others about one time in eighty.
pub(crate) const REQUIRED_QUERY_CALLS: u64 = 6;

/// Whether a node's `calls`-th call may set it apart from a sibling by its
/// required query parameters (`always`): when it makes the count one of the
/// view's thresholds, or, for a node that always sent a name, the pair's
/// total reach [`REQUIRED_QUERY_CALLS`] beside a sibling of
/// [`NEVER_AFTER_CALLS`].
fn required_query_counts(calls: u64, always: u64) -> bool {
    calls == NEVER_AFTER_CALLS
        || calls == REQUIRED_AFTER_CALLS
        || (always != 0 && calls == REQUIRED_QUERY_CALLS - NEVER_AFTER_CALLS)
}

/// The [`RawNode::methods`] bit of POST, which creates in a collection or
/// runs an action (RFC 9110: the target processes what is sent).
pub(crate) const POSTED: u8 = 1 << 4;

/// The [`RawNode::methods`] bit of DELETE, which removes the resource a
/// path names.
pub(crate) const DELETED: u8 = 1 << 1;

/// The [`RawNode::methods`] bit of GET and HEAD, which read it.
pub(crate) const READ: u8 = 1 << 3;

/// One bit per method: PUT, DELETE, PATCH (the [`WRITES_RESOURCE`] bits),
/// then GET or HEAD, POST, any other.
pub(crate) fn method_bit(method: &str) -> u8 {
    match method.to_ascii_uppercase().as_str() {
        "PUT" => 1,
        "DELETE" => DELETED,
        "PATCH" => 1 << 2,
        "GET" | "HEAD" => READ,
        "POST" => POSTED,
        _ => 1 << 5,
    }
}

/// The names of a query's parameters, one bit of 64 each (a fixed-seed
/// hash): what [`RawNode::query`] keeps. Cache-busters name nothing
/// ([`ar_flow::segment::is_cache_buster`]).
pub(crate) fn query_bits(query: &str) -> u64 {
    use std::hash::BuildHasher as _;
    let hasher = foldhash::fast::FixedState::default();
    (query.split('&').filter(|pair| !pair.is_empty()))
        .map(|pair| pair.split_once('=').unwrap_or((pair, "")))
        .filter(|(name, value)| !ar_flow::segment::is_cache_buster(name, value))
        .fold(0, |bits, (name, _)| {
            bits | 1 << (hasher.hash_one(name) % 64)
        })
}

/// Records `path` in `trie`; writes the path's layer-1 key into `layer1`.
fn observe_in(
    trie: &mut HostTrie,
    cfg: &TemplaterConfig,
    path: &str,
    call: SeenCall<'_>,
    origins: &[(usize, Origin)],
    layer1: &mut String,
) -> bool {
    let mut changed = false;
    let mut node = &mut trie.raw;
    node.count += 1;
    let (segments, trailing) = split_path(path);
    let mut segments = segments.peekable();
    layer1.clear();
    // The value when the node reached last is the trie's parameter.
    let mut after_param: Option<&str> = None;
    for position in 0..cfg.max_depth {
        let Some(segment) = segments.next() else {
            break;
        };
        let origin = origins.iter().find(|(p, _)| *p == position).map(|(_, o)| o);
        let (stem, suffix) = split_suffix(segment, segments.peek().is_none());
        let (child, is_param) = descend(node, cfg, stem, origin, layer1, &mut changed);
        if let Some(before) = after_param {
            changed |= child.follows(value_hash(before));
        }
        node = child;
        after_param = is_param.then_some(stem);
        if let Some(suffix) = suffix {
            node = descend(node, cfg, &suffix.token(), None, layer1, &mut changed).0;
        }
    }
    for segment in segments {
        let kind = classify_segment(segment).filter(|k| !k.is_weak(segment));
        push_layer1(layer1, segment, kind);
    }
    layer1.push(if trailing { 'T' } else { 'F' });
    node.terminal += 1;
    let query = call.query.map_or(0, query_bits);
    if query & !node.query != 0 {
        node.query |= query;
        changed = true;
    }
    let always = if node.terminal == 1 {
        query
    } else {
        node.always & query
    };
    // The calls at which the view may set two leaves apart by their
    // required query parameters change it though nothing else did: rebuild
    // then, or the endpoints would depend on the order the calls came in.
    changed |= always != node.always || required_query_counts(node.terminal, always);
    node.always = always;
    let method = call.method.map_or(0, method_bit);
    if method & !node.methods != 0 {
        node.methods |= method;
        changed = true;
    }
    let status = call.status.map_or(0, status_bit);
    if status & !node.statuses != 0 {
        node.statuses |= status;
        changed = true;
    }
    if let Some(shape) = call.shape
        && let Err(at) =
            (node.shapes).binary_search_by_key(&shape.fingerprint(), |s| s.fingerprint())
        && node.shapes.len() < MAX_SHAPES
    {
        node.shapes.insert(at, shape);
        changed = true;
    }
    if changed {
        trie.rebuild(cfg);
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cached_shape_keys_equal_fresh_ones_as_templates_widen() {
        let mut t = Templater::default();
        let mut key = String::new();
        let paths = [
            "/users/me",
            "/users/42",
            "/repos/rust-lang/cargo/issues",
            "/repos/tokio-rs/tokio/issues",
            "/users/43",
            "/repos/serde-rs/serde/issues",
            "/v1/orders/ord_8Hq2LmZ",
            "/v1/orders/ord_9Xh2kQ3",
            "/repos/a/b/issues/",
            "/",
            "/users/me",
            "/repos/rust-lang/cargo/issues",
        ];
        for round in 0..2 {
            for path in paths {
                let call = SeenCall {
                    shape: Some(AnswerShape::exact(round)),
                    query: None,
                    method: None,
                    status: None,
                };
                t.observe_shape_key_into("h", path, call, &[], &mut key);
                assert_eq!(key, t.shape_key("h", path), "{path}");
            }
        }
    }

    #[test]
    fn paths_split_into_segments_like_str_split() {
        for path in ["/a//b/", "/", "", "a", "//", "/users/42", "/é/x"] {
            let (segments, trailing) = split_path(path);
            let trimmed = path.strip_prefix('/').unwrap_or(path);
            let expected_trailing = trimmed.ends_with('/') && !trimmed.is_empty();
            let trimmed = trimmed.strip_suffix('/').unwrap_or(trimmed);
            let expected: Vec<&str> = trimmed.split('/').filter(|_| !trimmed.is_empty()).collect();
            assert_eq!(
                (segments.collect::<Vec<_>>(), trailing),
                (expected, expected_trailing),
                "{path}"
            );
        }
    }

    fn learn(paths: &[&str]) -> Templater {
        let mut t = Templater::default();
        for p in paths {
            t.observe("h", p, None);
        }
        t
    }

    fn tpl(t: &Templater, path: &str) -> String {
        t.template("h", path).to_string()
    }

    #[test]
    fn slugs_fold_when_subtrees_are_alike() {
        let t = learn(&[
            "/repos/rust-lang/cargo/issues",
            "/repos/tokio-rs/tokio/issues",
        ]);
        assert_eq!(
            tpl(&t, "/repos/rust-lang/cargo/issues"),
            "/repos/{owner}/{repo}/issues"
        );
        assert_eq!(
            tpl(&t, "/repos/tokio-rs/tokio/issues"),
            "/repos/{owner}/{repo}/issues"
        );
        let explained = t.explain("h", "/repos/rust-lang/cargo/issues").to_string();
        assert!(explained.contains("end alike at `issues`"), "{explained}");
    }

    #[test]
    fn me_beside_ids_and_versions_stay_literal() {
        let t = learn(&[
            "/users/me",
            "/users/42",
            "/users/43/orders/7",
            "/v1/search",
            "/v2/search",
            "/api/search",
            "/api/settings",
        ]);
        assert_eq!(tpl(&t, "/users/me"), "/users/me");
        assert_eq!(tpl(&t, "/users/42"), "/users/{userId}");
        assert_eq!(
            tpl(&t, "/users/43/orders/7"),
            "/users/{userId}/orders/{orderId}"
        );
        assert_eq!(tpl(&t, "/v1/search"), "/v1/search");
        assert_eq!(tpl(&t, "/v2/search"), "/v2/search");
        assert_eq!(tpl(&t, "/api/search"), "/api/search");
        assert_eq!(tpl(&t, "/api/settings"), "/api/settings");
    }

    #[test]
    fn collection_names_do_not_fold() {
        let t = learn(&[
            "/api/orgs/acme/members",
            "/api/users/bob/members",
            "/api/teams/core/members",
        ]);
        assert_eq!(tpl(&t, "/api/orgs/acme/members"), "/api/orgs/acme/members");
    }

    #[test]
    fn leaf_slugs_widen_once_there_are_enough() {
        let mut t = Templater::default();
        let slugs = [
            "red-shoe",
            "blue-hat",
            "green-scarf",
            "black-belt",
            "white-sock",
        ];
        // Below a word that names no collection, three alike leaves are
        // needed: two alike answers may be two operations of one kind.
        for (i, slug) in slugs.iter().enumerate() {
            let changed = t.observe("h", &format!("/shop/{slug}"), Some(7));
            assert!(changed);
            let expected = if i < 2 {
                format!("/shop/{slug}")
            } else {
                "/shop/{shop}".to_string()
            };
            assert_eq!(tpl(&t, &format!("/shop/{slug}")), expected);
        }
        assert_eq!(tpl(&t, "/shop/red-shoe"), "/shop/{shop}");
        // Below a collection word they are its items from two on, if they
        // answered alike.
        t.observe("h", "/products/teal-cap", Some(7));
        assert_eq!(tpl(&t, "/products/teal-cap"), "/products/teal-cap");
        t.observe("h", "/products/navy-coat", Some(7));
        assert_eq!(tpl(&t, "/products/teal-cap"), "/products/{product}");
        t.observe("h", "/products/search", Some(8));
        assert_eq!(tpl(&t, "/products/search"), "/products/search");
        t.observe("h", "/products/count", None);
        assert_eq!(tpl(&t, "/products/count"), "/products/count");
    }

    #[test]
    fn overflowing_literals_fold_and_stay_bounded() {
        let mut t = Templater::default();
        for i in 0..10_000 {
            t.observe(
                "h",
                &format!("/tags/tag-{}x/items", i * 7919 % 100_003),
                None,
            );
        }
        assert_eq!(tpl(&t, "/tags/tag-3x/items"), "/tags/{tag}/items");
        assert!(t.approx_heap_bytes() < 200_000, "{}", t.approx_heap_bytes());
    }

    #[test]
    fn pin_splits_a_fold() {
        let mut t = learn(&[
            "/repos/rust-lang/cargo/issues",
            "/repos/tokio-rs/tokio/issues",
        ]);
        assert!(t.pin("h", "/repos/rust-lang/cargo/issues", 1));
        assert_eq!(
            tpl(&t, "/repos/rust-lang/cargo/issues"),
            "/repos/rust-lang/cargo/issues"
        );
        assert!(!t.pin("h", "/repos/rust-lang/cargo/issues", 1));
    }
}
