//! Signature templating: which concrete paths are the same endpoint.
//!
//! A request's signature is `(method, host, path template, status class)`.
//! Query parameters never enter it; GraphQL requests are keyed by operation
//! name instead of their single URL ([`graphql_operation`]).
//!
//! # The algorithm
//!
//! **Layer 1, one segment alone** ([`classify_segment`]): a segment whose
//! spelling says "value" is a parameter at once: integers, UUIDs, hex ids and
//! hashes, dates and Unix timestamps, emails, prefixed ids (`cus_9Xh2kQ`),
//! `AC`+32-hex SIDs, long opaque base62/base64url tokens and JWTs, issue keys
//! (`PROJ-123`). Version tags (`v1`) are never values.
//!
//! **Layer 2, across samples** ([`Templater`]): every observed path is
//! inserted into a *raw trie* per host: literal segments are children by
//! name, classified segments share one parameter child. The raw trie only
//! grows (counts add, sets union), so it is a function of the *set* of
//! observed paths, not of their order. Templates are read from a *view* that
//! is rebuilt from the raw trie whenever it gains a node. At each node the
//! view decides which literal children fold into the parameter child:
//!
//! - **alike subtrees**: two literals fold when their subtrees contain paths
//!   of the same length that end the same way and agree on a literal anchor
//!   (`rust-lang/cargo/issues` and `tokio-rs/tokio/issues`, anchor `issues`).
//!   Under a literal parent a one-segment suffix is weak evidence and needs
//!   three alike literals; under a parameter two suffice. Folding recurses:
//!   the merged subtree is decided again, so `cargo`/`tokio` fold too, giving
//!   `/repos/{owner}/{repo}/issues`.
//! - **cardinality**: at least three leaf literals (not at the root) whose
//!   responses share a shape fingerprint fold (`/search/{query}` for
//!   `jazz`, `deploy`, `roadmap`); leaves with no answer to compare need
//!   five. Short closed vocabularies (`/search`, `/settings`) stay literal,
//!   and so do plural words (`/v1/users`, `/v1/orders` lists share one
//!   envelope). Below a collection word with no ids of its own, two leaves
//!   that answered in a shared shape are already its items
//!   (`/roles/read-only-plus`), unless a sibling collection has the same
//!   leaf: then it is an operation (`/experiments/search`, `/runs/search`);
//!   three or more alike are items all the same (ids from one pool recur
//!   under several collections). Leaves after several values of the
//!   parameter before are operations on them (`/feeds/{key}/data/last`),
//!   and beside values a word joins them only by answering as they do
//!   (`/projects/starred` answers as a list, `/projects/{id}` as one).
//!   Empty answers (`{}`, no body) are no evidence of a shared shape.
//! - **names where names are expected**: in a namespace, or right after an
//!   id its spelling proves, alike literals fold only when they are
//!   interchangeable, as values are: most of the paths below each meet a
//!   path below another (`/api/dcim/...` and `/api/virtualization/...`
//!   share one child of fifteen; `/Employer/1/Employee/...` and
//!   `/Employer/1/SubContractor/...` lead to sub-resources of their own).
//!   A word a version tag follows names a versioned API (`/geofences/v2`),
//!   and dotted names where two resources share two methods are RPC method
//!   names (`artist.get`, `artist.search`, `track.search`, `track.get`).
//! - **provenance**: a literal whose value was seen earlier in a JSON body
//!   folds even alone, and is named after that field (`$.orders[].id` →
//!   `{orderId}`).
//! - **overflow**: a node that reached the cap of distinct literals folds
//!   them all (memory stays bounded, and so many names are values).
//! - **weak values** (short integers, plain dates, dotted versions: `1`, `2015-03-31`, `2.0`)
//!   are kept in the raw trie with their own subtrees and fold like any
//!   classified value, except where what follows them says they are names:
//!   one value that never varies while it leads to several paths is an API
//!   generation (`/1/...`, `/api/3/...`) unless it follows a collection word
//!   (`/users/42/...`), and values that each lead to paths of their own are
//!   literals (`/2015-03-31/functions`, `/2018-10-31/layers`).
//!
//! Never folded: version tags, literals of a pinned node (a user split), and
//! REST collections: plural words each directly followed by its own
//! identifier parameter (`/users/{userId}`, `/orders/{orderId}`), however
//! many of them look alike, unless one and the same long id follows two of
//! them (`/follows/brands/61615302`, `/follows/series/61615302`): such an id
//! names one thing, so the words are its kinds, values of one parameter.
//! Other groups made only of plural words (`orgs`,
//! `users`) stay literal below eight of them; from eight on, plural words
//! with literal or slug children are values (`/shop/{category}/items` for
//! `shoes`, `shirts`, ...). Provenance beats both: once three literals of an
//! alike group were seen in bodies, the whole group folds. A single literal beside a
//! parameter keeps its own endpoint (`/users/me` beside `/users/{userId}`).
//!
//! Because the raw trie only grows and the rules are monotone (more paths can
//! only add folds), templates *widen* as evidence grows; the store then
//! merges the endpoints that now share a template. The exceptions are a
//! literal whose new structure contradicts its fold: a leaf folded by
//! cardinality that gains children, or a plural word folded with seven others
//! that gains its own ids; there the template narrows again. Every fold keeps its
//! [`Evidence`] (rule, sample count, values), and [`Templater::explain`]
//! also says why each literal stayed literal. [`Templater::pin`] undoes a
//! fold (a split), and the pin is itself part of the raw trie.
//!
//! Parameter names come from context (see the naming rules on
//! [`PathParam::name`]) and are unique within a path.

mod answer;
mod graphql;
mod naming;
mod overrides;
mod trie;
mod view;

use std::fmt;

use serde::{Deserialize, Serialize};

pub use answer::AnswerShape;
pub(crate) use answer::leaf_sketch;
pub use ar_flow::graphql::OperationKind;
pub use ar_flow::segment::{SegmentKind, classify_segment, is_method_verb};
pub use graphql::{GraphQlOperation, graphql_operation};
pub(crate) use graphql::{graphql_calls, operation_of};
pub use overrides::{Overrides, Pattern, PatternError};
pub use trie::{Templater, TemplaterConfig};

pub(crate) use ar_flow::segment::{
    SegmentSuffix, format_suffix, is_format_token, is_version_like, split_path, split_suffix,
};
pub use naming::singular;
pub(crate) use naming::{is_generic_field, is_id_field, is_identifier_field, name_from_field};
pub(crate) use trie::{Origin, SeenCall};

/// Why a position of a template is a parameter.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "rule", rename_all = "snake_case")]
pub enum Rule {
    /// The segment's own spelling (layer 1).
    Segment {
        /// The kind recognised.
        kind: SegmentKind,
    },
    /// Literal siblings whose subtrees end alike, at the literal `anchor`.
    Alike {
        /// The shared literal that anchors the alike suffixes (`issues`).
        anchor: String,
    },
    /// Literal siblings whose subtrees answer alike at the same depth, where
    /// no shared literal anchors them (`/flags/web/dark-mode` and
    /// `/flags/mobile/pricing`, both answering as one flag).
    AnswerAlike,
    /// Many leaf literals whose responses share a shape.
    Cardinality {
        /// How many distinct literals were alike.
        distinct: usize,
    },
    /// Leaf literals that answered nothing to compare, each sent a query
    /// parameter name that few places of the API are sent
    /// (`/streets/{street}?postcode=`): calls of one operation.
    SentAlike {
        /// How many distinct literals were sent it.
        distinct: usize,
    },
    /// Leaf literals that answered nothing to compare, each only written
    /// (PUT, DELETE, PATCH): those methods act on the resource a path names
    /// (RFC 9110), so the leaves are resources of one collection
    /// (`DELETE /Images/Disc`, `/Images/Thumb`), not its operations.
    WrittenAlike {
        /// How many distinct literals were written.
        distinct: usize,
    },
    /// Leaf literals after an id, some of them after several ids (which
    /// would make them operations on it), each only read and answering in
    /// one document shape: an action changes what it acts on and GET changes
    /// nothing (RFC 9110, 9.2.1), so they are one read in several
    /// renderings (`/invoices/{id}/{json,ubl,original}`).
    ReadAlike {
        /// How many distinct literals were read alike.
        distinct: usize,
    },
    /// Leaf literals after a word that ends in the preposition `by`
    /// (`/events/count-by/{event,time}`), answering alike: the word asks for
    /// the key to count, group or sort by, and the leaves are its values.
    KeyedBy {
        /// The word they follow (`count-by`).
        word: String,
        /// How many distinct literals answered alike after it.
        distinct: usize,
    },
    /// One of several slots below a word whose words change places
    /// (`/rates/USD/EUR`, `/rates/EUR/USD`): names have one place in a
    /// hierarchy, values of one domain fill any slot.
    SwappedSlots {
        /// Slots below the word, each a parameter.
        slots: usize,
        /// Distinct paths through them.
        paths: usize,
    },
    /// More distinct literals than the trie keeps at one node.
    Overflow {
        /// Distinct literals kept before the cap was reached.
        distinct: usize,
    },
    /// A literal beside a parameter that leads to the same paths, or answers
    /// in the same shape, as the parameter's values (`/users/me/tasks`
    /// beside `/users/{userId}/tasks`).
    LikeParam {
        /// Paths below the literal that are paths below the parameter too
        /// (0 for a leaf that answered in the parameter's shape).
        shared_paths: usize,
    },
    /// A leaf written to (PUT, DELETE, PATCH) beside values that were only
    /// written, with nothing answered on either side beyond the envelope:
    /// one more of the resources they name (`/taxes/ember`, deleted and
    /// read as `[]`, beside deleted `/taxes/{tax}`).
    WrittenBeside,
    /// A word that is a value of a parameter at another position too
    /// (`hana` in `/user-badges/hana`, a value of `/topics/messages/{}`),
    /// found beside other values here.
    KnownValue {
        /// Where it was a value, parameters as `{}` (`/topics/messages/{}`).
        elsewhere: String,
    },
    /// The value was seen in an earlier JSON body.
    Provenance {
        /// Where it was seen, e.g. `$.orders[].id`.
        field_path: String,
        /// The parameter name derived from that field (`orderId`).
        name: String,
    },
    /// Below a literal, paths of several depths that all end in a file
    /// name (`/files/a/b/c.txt`, `/files/x.md`): one parameter for the rest
    /// of the path.
    FileTree {
        /// Distinct paths that ended in a file below the literal.
        files: usize,
        /// Distinct depths among them.
        depths: usize,
    },
    /// A leaf beside a parameter's values that only ever answered 404 Not
    /// Found (or 410 Gone): it names nothing that exists, so it is one more
    /// value of the parameter (one not found), not a route of its own.
    Missing,
    /// Below a literal, names in a scope (`@scope/name`, as npm writes a
    /// package of an organisation) that answer alike: one parameter of two
    /// segments, as the scope alone names nothing.
    ScopedNames {
        /// Distinct scoped names below the literal.
        names: usize,
        /// Distinct scopes among them.
        scopes: usize,
    },
    /// Values that are file names, extension included: they end in several
    /// extensions, not all an API's response formats, none with two
    /// (`hello.py`, `data.csv`, `notes.md`). A `.csv` there is part of the
    /// name, not a format of its own beside the others.
    FileNames {
        /// Distinct extensions among the values.
        extensions: usize,
        /// The rule that made the position a parameter.
        of: Box<Rule>,
    },
    /// Children of a name that lead where the values below a sibling name
    /// lead (their formats, ids, words) and answer alike them
    /// (`/crm/{contacts,deals}.json` beside `/shop/{table}.json`).
    LikeSiblings {
        /// The sibling whose values they are like.
        sibling: String,
    },
    /// A leaf that answered nothing of its own (deleted, written), named as
    /// a file with one of the extensions of the file names beside it
    /// (`DELETE /files/b.txt` beside `/files/{file}`): one more file.
    FileLike {
        /// Its extension, one the values have.
        extension: String,
    },
    /// Lowercase words below a name, in an API that capitalises the names
    /// in its paths (`/Revision/beta/Summary`, `/Revision/orion/Summary`
    /// beside `/Employer`, `/HolidayScheme`): data, grouped by `alike`
    /// as values are, not names that must answer identically to fold.
    Uncapitalised {
        /// The rule that grouped them.
        alike: Box<Rule>,
    },
    /// The only words (one or two) that end the path below a collection,
    /// answering as items do, where sibling collections at the same
    /// position take words as their items' keys (`/api/feats/grappler`
    /// beside `/api/spells/{spell}`, `/api/classes/{class}`): items, the
    /// few the traffic showed.
    SiblingItems {
        /// Sibling collections whose items are keyed by words.
        collections: usize,
    },
    /// The part of a segment after a fixed name and a dot, where several
    /// names at one position each end in several of the same words
    /// (`/blacklist.{format}`, `/categories.{format}`: `blacklist.xml`,
    /// `blacklist.yaml`, `categories.xml`, `categories.yaml`). Endings one
    /// name alone has are parts of that name; endings the names share are
    /// a value each of them takes (a format, a variant).
    SharedEndings {
        /// Names at this position that end in the shared words.
        names: usize,
        /// Distinct shared words.
        endings: usize,
    },
    /// The value of a segment written `key=value`
    /// (`/translations={translations}`): the URL's own syntax for a
    /// named value, as in a query string.
    KeyValue {
        /// The key before the `=`.
        key: String,
    },
    /// Sibling words followed by one and the same id
    /// (`/follows/brands/61615302`, `/follows/series/61615302`): an id
    /// spelled so that it cannot recur by chance names one thing wherever
    /// it appears, so the ids after these words are one pool, not each
    /// word's own, and the word says which kind of thing is meant.
    SharedIds {
        /// An id found after more than one of the words.
        id: String,
        /// The words that share ids, this one included.
        words: usize,
    },
    /// A user template (`--template`) matched the path; it beats every
    /// learnt rule.
    Override {
        /// The pattern as the user wrote it (`/api/files/{path*}`).
        pattern: String,
    },
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Segment {
                kind: SegmentKind::Pair,
            } => f.write_str(
                "each value is two numbers joined by a comma: a parameter each, once three differ",
            ),
            Self::Segment { kind } => write!(f, "each value looks like {}", kind.as_str()),
            Self::Alike { anchor } => write!(
                f,
                "distinct literals whose subtrees end alike at `{anchor}`"
            ),
            Self::AnswerAlike => {
                f.write_str("distinct literals whose subtrees answer alike at the same depth")
            }
            Self::Cardinality { distinct } => {
                write!(f, "{distinct} distinct leaf literals that answered alike")
            }
            Self::SentAlike { distinct } => write!(
                f,
                "{distinct} distinct leaf literals, each sent a query parameter few places are sent"
            ),
            Self::WrittenAlike { distinct } => write!(
                f,
                "{distinct} distinct leaf literals, each only written (PUT, DELETE, PATCH act on a resource)"
            ),
            Self::ReadAlike { distinct } => write!(
                f,
                "{distinct} distinct leaf literals after an id, each only read (GET) and answering alike: renderings of one read, not actions"
            ),
            Self::KeyedBy { word, distinct } => write!(
                f,
                "{distinct} distinct leaf literals after `{word}`, answering alike: what follows a `by` is the key chosen, a value"
            ),
            Self::SwappedSlots { slots, paths } => write!(
                f,
                "one of {slots} slots whose words change places in {paths} paths of one depth"
            ),
            Self::Overflow { distinct } => {
                write!(f, "more than {distinct} distinct literals at this position")
            }
            Self::LikeParam { shared_paths: 0 } => {
                f.write_str("a literal that answers like the values beside it")
            }
            Self::LikeParam { shared_paths } => write!(
                f,
                "a literal that leads to the same paths as the values beside it ({shared_paths} shared)"
            ),
            Self::WrittenBeside => f.write_str(
                "a literal written to (PUT, DELETE, PATCH) as the values beside it were, answering nothing of its own",
            ),
            Self::KnownValue { elsewhere } => {
                write!(f, "a word that is a value at {elsewhere} too")
            }
            Self::Provenance { field_path, .. } => {
                write!(f, "value seen earlier in a body at {field_path}")
            }
            Self::SiblingItems { collections } => write!(
                f,
                "the only words below a collection, answering as items, where {collections} sibling collections take words as their items' keys"
            ),
            Self::FileNames { extensions, of } => write!(
                f,
                "file names, extension included ({extensions} extensions among the values): {of}"
            ),
            Self::LikeSiblings { sibling } => write!(
                f,
                "names that lead where the values below `{sibling}` lead, and answer alike them"
            ),
            Self::FileLike { extension } => write!(
                f,
                "a file name like the values (.{extension}), with no answer of its own"
            ),
            Self::Uncapitalised { alike } => write!(
                f,
                "lowercase words where this API's names are capitalised: {alike}"
            ),
            Self::FileTree { files, depths } => write!(
                f,
                "the rest of the path: {files} paths of {depths} depths below here all end in a file name"
            ),
            Self::Missing => f.write_str(
                "a value that was not found: it only answered 404, beside the values of this parameter",
            ),
            Self::ScopedNames { names, scopes } => write!(
                f,
                "one scoped name (@scope/name): {names} names in {scopes} scope(s) below here answered alike"
            ),
            Self::SharedEndings { names, endings } => write!(
                f,
                "the end of a name after its dot: {names} names here end in {endings} of the same words"
            ),
            Self::KeyValue { key } => write!(f, "the value of `{key}=` in a key=value segment"),
            Self::SharedIds { id, words } => write!(
                f,
                "one of {words} sibling words followed by the same id (`{id}`): one pool of ids, the word its kind"
            ),
            Self::Override { pattern } => write!(f, "a user template: {pattern}"),
        }
    }
}

/// The evidence behind one parameter.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evidence {
    /// The strongest rule that made this position a parameter.
    pub rule: Rule,
    /// Flows observed through this position (when the template was computed).
    pub samples: u64,
    /// Some of the values seen (sorted, at most eight).
    pub values: Vec<String>,
    /// The layer-1 kinds seen at this position, sorted (empty for pure slugs).
    pub kinds: Vec<SegmentKind>,
}

/// A parameter segment of a template.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PathParam {
    /// Unique within the path. From a body field when the value came from
    /// one (`orderId`); else from the nearest collection before it,
    /// singularised: `{userId}` for ids, `{product}` for slugs; `{owner}`
    /// for the first of two slugs in a row; `email`, `date`, `timestamp`,
    /// `issueKey` for those kinds; `id` / `name` with no collection.
    pub name: String,
    /// Why this is a parameter.
    pub evidence: Evidence,
    /// A fixed name that begins the segment before the value (`blacklist.`
    /// in `/blacklist.{format}`, `translations=` in
    /// `/translations={translations}`); empty for most parameters.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub prefix: String,
    /// A response-format suffix that ends the segment after the value
    /// (`.json` in `/t/{topicId}.json`); empty for a whole-segment parameter.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub suffix: String,
    /// Whether the parameter takes the rest of the path, slashes included
    /// (`{path*}` in a user template, always the last segment). It renders
    /// as `{path}` (OpenAPI has no multi-segment syntax); its value is the
    /// remaining segments joined by `/` (`a/b/c.txt`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rest: bool,
    /// More parameters in the same segment, each after its separator
    /// (`,{longitude}` in `/{latitude},{longitude}`): where every value of
    /// the position is a pair of numbers, each number is a parameter.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub joined: Vec<JoinedParam>,
}

/// A parameter that shares its segment with the one before it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JoinedParam {
    /// What comes between it and the parameter before (`,`).
    pub separator: String,
    /// Its name, unique within the path.
    pub name: String,
}

impl PathParam {
    /// Every parameter name this segment holds, in order (`latitude`, `longitude`).
    pub fn names(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.name.as_str()).chain(self.joined.iter().map(|j| j.name.as_str()))
    }

    /// A value of this segment split into one value per parameter, in
    /// order; `None` when it does not begin with the prefix or does not
    /// have the parameters' separators.
    pub fn split_value<'v>(&self, value: &'v str) -> Option<Vec<&'v str>> {
        let mut values = Vec::with_capacity(1 + self.joined.len());
        let mut rest = value.strip_prefix(self.prefix.as_str())?;
        for joined in &self.joined {
            let (head, tail) = rest.split_once(joined.separator.as_str())?;
            values.push(head);
            rest = tail;
        }
        values.push(rest);
        Some(values)
    }
}

impl fmt::Display for PathParam {
    /// The prefix, `{name}`, each joined parameter after its separator,
    /// then the suffix.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{{{}}}", self.prefix, self.name)?;
        for joined in &self.joined {
            write!(f, "{}{{{}}}", joined.separator, joined.name)?;
        }
        f.write_str(&self.suffix)
    }
}

/// One segment of a path template.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Segment {
    /// A fixed name, as written in the URL.
    Literal(String),
    /// A parameter.
    Param(PathParam),
}

/// A path template such as `/users/{userId}/orders`.
///
/// ```
/// use ar_store::template::Templater;
/// let mut templater = Templater::default();
/// templater.observe("api.shop.test", "/users/42/orders", None);
/// let template = templater.template("api.shop.test", "/users/42/orders");
/// assert_eq!(template.to_string(), "/users/{userId}/orders");
/// assert_eq!(template.params().next().unwrap().name, "userId");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PathTemplate {
    /// The segments in order (empty for `/`).
    pub segments: Vec<Segment>,
    /// Whether the path ended with `/` (`/users/` vs `/users`).
    pub trailing_slash: bool,
}

impl PathTemplate {
    /// The parameters in path order.
    pub fn params(&self) -> impl Iterator<Item = &PathParam> {
        self.segments.iter().filter_map(|s| match s {
            Segment::Param(p) => Some(p),
            Segment::Literal(_) => None,
        })
    }

    /// The parameter at segment `position`, if that segment is one.
    pub fn param_at(&self, position: usize) -> Option<&PathParam> {
        match self.segments.get(position) {
            Some(Segment::Param(p)) => Some(p),
            _ => None,
        }
    }
}

impl fmt::Display for PathTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.segments.is_empty() {
            return f.write_str("/");
        }
        for segment in &self.segments {
            match segment {
                Segment::Literal(text) => write!(f, "/{text}")?,
                Segment::Param(p) => write!(f, "/{p}")?,
            }
        }
        if self.trailing_slash {
            f.write_str("/")?;
        }
        Ok(())
    }
}

/// Why a literal segment stayed literal beside a parameter or its siblings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KeptReason {
    /// A version tag (`v1`, `v2`): a closed vocabulary.
    Version,
    /// A user split pinned this position to literals.
    Pinned,
    /// A user template (`--template`) has this literal here.
    Override {
        /// The pattern as the user wrote it.
        pattern: String,
    },
    /// No sibling literal has an alike subtree, and too few leaves share a shape.
    OwnShape {
        /// Literal siblings at this position (including this one).
        siblings: usize,
    },
    /// One of a few leaves that answered alike in a namespace where the
    /// names beside them number three times as many: operations answering
    /// in one envelope, not values.
    AmongNames {
        /// Literals at this position that stay names by their own evidence.
        names: usize,
    },
    /// Beside values never posted to, a word only posted to: an action or
    /// a collection's operation (`/resources/copy` beside
    /// `/resources/{id}`, read, patched and deleted), not one more item.
    OnlyPosted,
    /// Alike siblings exist, but its calls always sent a query parameter
    /// theirs never did (or theirs one its calls never did): calls of one
    /// operation carry its required parameters every time.
    OwnRequiredQuery,
    /// Alike siblings exist, but they are names of lists: plural words
    /// (`orgs`, `users`), three in four of a few at least.
    CollectionNames,
    /// A leaf that follows several of the names or values before it: an
    /// operation or a part of each (`/jobs/{id}/cancel` after many ids,
    /// `search` after `experiments` and `runs`), not a value.
    AfterSeveral,
    /// A value that never varied here while it led to several paths: an API
    /// generation (`/1/...`, `/api/3/...`), not an id.
    Constant {
        /// Flows observed through it.
        samples: u64,
        /// Distinct paths that follow it.
        paths: usize,
    },
    /// Values that each lead to paths of their own (`/2015-03-31/functions`,
    /// `/2018-10-31/layers`): names, where values of one parameter would
    /// lead to the same paths.
    OwnPaths {
        /// Distinct values at this position.
        values: usize,
        /// Paths reached from more than one of them.
        shared: usize,
        /// Distinct paths that follow them.
        paths: usize,
    },
    /// A dotted RPC method name (`album.tracks.get`): among its siblings a
    /// resource comes with several methods and a method with several
    /// resources.
    RpcMethod {
        /// Its last word, the method (`get`).
        method: String,
        /// Sibling names that end in the same method.
        resources: usize,
    },
    /// A name its siblings are built from, or one built from a sibling's
    /// name (`gender` and `genderBatch`, `religionFull` and
    /// `religionFullBatch`): several siblings are named again with the same
    /// word added, a family of operations that values of one parameter do
    /// not make.
    Derived {
        /// The word added (`Batch`).
        suffix: String,
        /// Sibling names named again with it.
        bases: usize,
    },
    /// The name of an API or service: a version tag follows it
    /// (`/geofences/v2/...`), and values of one parameter are not versioned
    /// each on their own.
    Versioned {
        /// The version tag that follows it (`v2`).
        version: String,
    },
    /// A name in a namespace: most of the paths below it lead where no
    /// alike sibling's do (`/api/dcim/racks`, `/api/dcim/sites`, ... beside
    /// `/api/virtualization/interfaces`), where values of one parameter lead
    /// to the same paths.
    OwnSubtree {
        /// Its paths that meet a path below an alike sibling.
        met: usize,
        /// Distinct paths below it.
        paths: usize,
    },
    /// A resource at the top of the API (the root, or below a constant
    /// prefix such as `/api/v2`): its paths meet its alike siblings' only
    /// through ids of their own (`/v2/asset/{id}`, `/v2/channel/{id}`), where
    /// values there (tenants, sources, chains) lead to the same names
    /// (`/{tenant}/users`).
    TopResource {
        /// The alike siblings kept with it.
        siblings: usize,
    },
    /// A name in a namespace: several calls went on below it to words
    /// found below none of its alike siblings (`annotation` in
    /// `/annotation_layer/{pk}/annotation/{id}` beside `/report/{pk}`;
    /// `intent` and `sentiment` below `language` beside `vision`, which has
    /// `ocr`), too many to have landed there by chance were they values,
    /// which share what follows them.
    OwnPath {
        /// The paths below it to those words, as templates (`{}/annotation`).
        paths: Vec<String>,
        /// The calls that went there.
        calls: u64,
    },
    /// A named view of a collection whose ids all have one spelling
    /// (`/broadcasts/latest`, `/users/profile` beside `/users/{userId}` of
    /// integers): a word is no value of such an id, however alike it
    /// answers (the latest broadcast is a broadcast).
    NamedView {
        /// The spellings of the ids beside it (`integer`, `uuid`).
        id_kinds: Vec<SegmentKind>,
    },
    /// A REST collection: a plural word directly followed by its own
    /// identifier parameter (`/users/{userId}`), like its alike siblings.
    /// Resource names, however many, are not values of one parameter.
    Collection {
        /// The identifier kinds seen right after this word (`integer`, `uuid`).
        id_kinds: Vec<SegmentKind>,
        /// Distinct identifiers seen right after it (at most eight are kept).
        ids: usize,
        /// Alike collection names at this position, this one included.
        siblings: usize,
    },
}

impl fmt::Display for KeptReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Version => f.write_str("a version tag"),
            Self::Pinned => f.write_str("pinned to literals by a split"),
            Self::Override { pattern } => write!(f, "a user template: {pattern}"),
            Self::OwnShape { siblings } => {
                write!(f, "own shape: no alike sibling among {siblings} literals")
            }
            Self::AmongNames { names } => write!(
                f,
                "a name among names: it answered alike a few siblings, beside {names} names of this namespace"
            ),
            Self::OnlyPosted => f.write_str(
                "an action: only posted to, where the values beside it never were",
            ),
            Self::OwnRequiredQuery => f.write_str(
                "an operation of its own: it and a sibling that answered alike differ in a query parameter one always sent and the other never",
            ),
            Self::CollectionNames => {
                f.write_str("alike siblings are names of lists, most of them plural")
            }
            Self::AfterSeveral => f.write_str("a name: it follows several of the values before it"),
            Self::Constant { samples, paths } => write!(
                f,
                "a constant: the only value here in {samples} flows, followed by {paths} different paths"
            ),
            Self::OwnPaths {
                values,
                shared,
                paths,
            } => write!(
                f,
                "each of {values} values leads to paths of its own ({shared} of {paths} paths shared)"
            ),
            Self::RpcMethod { method, resources } => write!(
                f,
                "an RPC method name: `.{method}` ends {resources} sibling names, and their resources have several methods"
            ),
            Self::Derived { suffix, bases } => write!(
                f,
                "a name of a family: {bases} sibling names are named again with `{suffix}` added"
            ),
            Self::Versioned { version } => {
                write!(f, "a name: the version tag `{version}` follows it")
            }
            Self::NamedView { id_kinds } => {
                let kinds: Vec<&str> = id_kinds.iter().map(|k| k.as_str()).collect();
                write!(
                    f,
                    "a named view: a word beside ids that are each {}",
                    kinds.join("/")
                )
            }
            Self::TopResource { siblings } => write!(
                f,
                "a resource at the top of the API: its paths meet those of {siblings} alike siblings only through ids of their own, where values there lead to shared names"
            ),
            Self::OwnPath { paths, calls } => write!(
                f,
                "a name: {calls} calls went on to `{}` below it and below none of its alike siblings, more than chance sends to one value",
                paths.join("`, `")
            ),
            Self::OwnSubtree { met, paths } => write!(
                f,
                "a name: {} of its {paths} paths lead where no alike sibling's do",
                paths - met
            ),
            Self::Collection {
                id_kinds,
                ids,
                siblings,
            } => {
                let kinds: Vec<&str> = id_kinds.iter().map(|k| k.as_str()).collect();
                write!(
                    f,
                    "a collection name: followed by its own {} ids ({ids} distinct)",
                    kinds.join("/")
                )?;
                if *siblings > 1 {
                    write!(f, ", one of {siblings} such alike names here")?;
                }
                Ok(())
            }
        }
    }
}

/// One templating decision for one segment of a path, with its evidence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum Decision {
    /// The segment is a parameter.
    Param {
        /// 0-based segment position.
        position: usize,
        /// The parameter's name.
        name: String,
        /// Why.
        evidence: Evidence,
    },
    /// The segment stayed a literal.
    Literal {
        /// 0-based segment position.
        position: usize,
        /// The literal.
        value: String,
        /// Why.
        reason: KeptReason,
    },
}

/// Every decision behind one path's template, for `explain`-style output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Explanation {
    /// The template, rendered (`/users/{userId}`).
    pub template: String,
    /// One decision per segment.
    pub decisions: Vec<Decision>,
}

impl fmt::Display for Explanation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}", self.template)?;
        for d in &self.decisions {
            match d {
                Decision::Param {
                    position,
                    name,
                    evidence,
                } => {
                    let values = evidence.values.join(", ");
                    writeln!(
                        f,
                        "  [{position}] {{{name}}}: {} ({} samples; e.g. {values})",
                        evidence.rule, evidence.samples
                    )?
                }
                Decision::Literal {
                    position,
                    value,
                    reason,
                } => writeln!(f, "  [{position}] {value}: literal, {reason}")?,
            }
        }
        Ok(())
    }
}

/// The class of a response status, part of a signature.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StatusClass {
    /// 1xx
    Informational,
    /// 2xx
    Success,
    /// 3xx
    Redirect,
    /// 4xx
    ClientError,
    /// 5xx
    ServerError,
    /// No response (an error flow) or a status outside 100..=599.
    NoResponse,
}

impl StatusClass {
    /// The class of `status`, or [`StatusClass::NoResponse`] for `None`.
    pub fn of(status: Option<u16>) -> Self {
        match status {
            Some(100..=199) => Self::Informational,
            Some(200..=299) => Self::Success,
            Some(300..=399) => Self::Redirect,
            Some(400..=499) => Self::ClientError,
            Some(500..=599) => Self::ServerError,
            _ => Self::NoResponse,
        }
    }
}
