//! User overrides of path templates (`--template '/api/files/{path*}'`).
//!
//! A pattern is a path template a person writes when the learnt rules get an
//! API wrong: literals, `{name}` for one whole segment, and `{name*}` as the
//! last segment for the rest of the path (one segment or more, slashes
//! included). A segment may hold fixed text around its parameters, and
//! several parameters with text between them (`blacklist.{format}`,
//! `{topicId}.json`, `{latitude},{longitude}`), as the learnt templates
//! write them. A pattern may start with a host (`api.example.com/files/{path*}`)
//! to apply to that host only; without one it applies to every host.
//!
//! A path matches a pattern when it has as many segments (or, with `{name*}`,
//! at least as many), its literals are equal and every parameter covers a
//! non-empty segment. Its template is then the pattern's, whatever the learnt
//! rules say; the first matching pattern wins, in the order given. Whether the
//! observed path ends with `/` stays part of its template.
//!
//! ```
//! use ar_store::template::{Overrides, Pattern};
//! let overrides = Overrides::new(vec![Pattern::parse("/api/files/{path*}").unwrap()]);
//! let template = overrides.template("api.test", "/api/files/docs/readme.md").unwrap();
//! assert_eq!(template.to_string(), "/api/files/{path}");
//! let param = template.params().next().unwrap();
//! assert!(param.rest);
//! assert!(overrides.template("api.test", "/api/users/42").is_none());
//!
//! let error = Pattern::parse("/files/{path*}/raw").unwrap_err();
//! assert!(error.to_string().contains("`{path*}` takes the rest of the path"), "{error}");
//! ```

use std::fmt;

use super::{Evidence, JoinedParam, PathParam, PathTemplate, Rule, Segment, split_path};

/// One segment of a [`Pattern`].
#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    Params(Params),
    /// `{name*}`: the rest of the path (last only).
    Rest(String),
}

/// A segment with parameters: fixed text before the first, each further one
/// after its separator, fixed text after the last (`{name}` alone has none).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Params {
    prefix: String,
    first: String,
    /// Each further parameter, after the text that separates it.
    joined: Vec<(String, String)>,
    suffix: String,
}

impl Params {
    fn names(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.first.as_str()).chain(self.joined.iter().map(|(_, n)| n.as_str()))
    }

    /// Whether `segment` fills this pattern: its fixed text where written,
    /// and a non-empty value for each parameter.
    fn fits(&self, segment: &str) -> bool {
        let Some(rest) = segment.strip_prefix(self.prefix.as_str()) else {
            return false;
        };
        let Some(mut rest) = rest.strip_suffix(self.suffix.as_str()) else {
            return false;
        };
        for (separator, _) in &self.joined {
            match rest.split_once(separator.as_str()) {
                Some((value, tail)) if !value.is_empty() => rest = tail,
                _ => return false,
            }
        }
        !rest.is_empty()
    }
}

/// One user template, parsed and checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern {
    /// As the user wrote it (trimmed).
    text: String,
    /// The host it is limited to (lowercase), if any.
    host: Option<String>,
    parts: Vec<Part>,
}

/// A pattern that cannot be used, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatternError {
    /// The pattern as given.
    pub pattern: String,
    /// What is wrong with it.
    pub problem: String,
}

impl fmt::Display for PatternError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "template `{}`: {}", self.pattern, self.problem)
    }
}

impl std::error::Error for PatternError {}

impl Pattern {
    /// Parses `/path/{name}/{rest*}` or `host/path/...`.
    ///
    /// Errors name the pattern and the problem: no path, an empty segment,
    /// an unbalanced brace, two parameters with nothing between them,
    /// `{name*}` sharing its segment, an empty or duplicate parameter name,
    /// or `{name*}` before the last segment.
    pub fn parse(text: &str) -> Result<Self, PatternError> {
        let text = text.trim();
        let fail = |problem: String| PatternError {
            pattern: text.to_string(),
            problem,
        };
        if text.is_empty() {
            return Err(fail("empty pattern".into()));
        }
        let unscheme = text
            .strip_prefix("https://")
            .or_else(|| text.strip_prefix("http://"))
            .unwrap_or(text);
        let (host, path) = match unscheme.find('/') {
            Some(0) => (None, unscheme),
            Some(at) => (Some(&unscheme[..at]), &unscheme[at..]),
            None => {
                return Err(fail(
                    "a template is a path starting with `/` (or HOST/path)".into(),
                ));
            }
        };
        if let Some(host) = host
            && host.contains(['{', '}'])
        {
            return Err(fail(format!(
                "the host `{host}` cannot hold a parameter; only the path can"
            )));
        }
        let (segments, _trailing) = split_path(path);
        let segments: Vec<&str> = segments.collect();
        let mut parts: Vec<Part> = Vec::with_capacity(segments.len());
        for (i, segment) in segments.iter().enumerate() {
            if segment.is_empty() {
                return Err(fail("empty segment (`//`)".into()));
            }
            let part = parse_segment(segment).map_err(fail)?;
            let names = |part: &Part| -> Vec<String> {
                match part {
                    Part::Literal(_) => Vec::new(),
                    Part::Params(params) => params.names().map(str::to_string).collect(),
                    Part::Rest(name) => vec![name.clone()],
                }
            };
            let before: Vec<String> = parts.iter().flat_map(names).collect();
            if let Some(name) = names(&part).into_iter().find(|n| before.contains(n)) {
                return Err(fail(format!("duplicate parameter name `{name}`")));
            }
            if let Part::Rest(name) = &part
                && i + 1 != segments.len()
            {
                return Err(fail(format!(
                    "`{{{name}*}}` takes the rest of the path, so it must be the last segment"
                )));
            }
            parts.push(part);
        }
        Ok(Self {
            text: text.to_string(),
            host: host.map(str::to_ascii_lowercase),
            parts,
        })
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The host it is limited to, if any.
    pub fn host(&self) -> Option<&str> {
        self.host.as_deref()
    }

    /// Whether `path` on `host` matches.
    pub fn matches(&self, host: &str, path: &str) -> bool {
        self.applies_to(host) && self.match_segments(split_path(path).0)
    }

    fn applies_to(&self, host: &str) -> bool {
        self.host
            .as_deref()
            .is_none_or(|h| h.eq_ignore_ascii_case(host))
    }

    fn match_segments<'p>(&self, mut segments: impl Iterator<Item = &'p str>) -> bool {
        for part in &self.parts {
            let Some(segment) = segments.next() else {
                return false;
            };
            match part {
                Part::Literal(text) if text != segment => return false,
                Part::Params(params) if !params.fits(segment) => return false,
                Part::Rest(_) if segment.is_empty() => return false,
                Part::Rest(_) => return true,
                _ => {}
            }
        }
        segments.next().is_none()
    }

    /// The template of `path` under this pattern (the caller checked it matches).
    fn template_of(&self, path: &str, samples: u64) -> PathTemplate {
        let (segments, trailing_slash) = split_path(path);
        let segments: Vec<&str> = segments.collect();
        let param = |params: &Params, value: String, rest: bool| {
            Segment::Param(PathParam {
                name: params.first.clone(),
                evidence: Evidence {
                    rule: Rule::Override {
                        pattern: self.text.clone(),
                    },
                    samples,
                    values: vec![value],
                    kinds: Vec::new(),
                },
                prefix: params.prefix.clone(),
                suffix: params.suffix.clone(),
                rest,
                joined: (params.joined.iter())
                    .map(|(separator, name)| JoinedParam {
                        separator: separator.clone(),
                        name: name.clone(),
                    })
                    .collect(),
            })
        };
        let segments = (self.parts.iter().enumerate())
            .map(|(i, part)| match part {
                Part::Literal(text) => Segment::Literal(text.clone()),
                Part::Params(params) => param(params, segments[i].to_string(), false),
                Part::Rest(name) => {
                    let whole = Params {
                        prefix: String::new(),
                        first: name.clone(),
                        joined: Vec::new(),
                        suffix: String::new(),
                    };
                    param(&whole, segments[i..].join("/"), true)
                }
            })
            .collect();
        PathTemplate {
            segments,
            trailing_slash,
        }
    }
}

impl std::str::FromStr for Pattern {
    type Err = PatternError;

    fn from_str(text: &str) -> Result<Self, PatternError> {
        Self::parse(text)
    }
}

impl fmt::Display for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// One segment: a literal without braces, `{name*}`, or parameters with
/// fixed text around and between them (`{name}`, `v{version}`,
/// `{latitude},{longitude}`).
fn parse_segment(segment: &str) -> Result<Part, String> {
    let unbalanced = || format!("unbalanced brace in segment `{segment}`");
    // Alternating text and parameter names: text, name, text, ..., text.
    let mut texts: Vec<&str> = Vec::new();
    let mut names: Vec<&str> = Vec::new();
    let mut rest = segment;
    while let Some(open) = rest.find(['{', '}']) {
        if rest.as_bytes()[open] == b'}' {
            return Err(unbalanced());
        }
        let after = &rest[open + 1..];
        let close = after.find(['{', '}']).ok_or_else(unbalanced)?;
        if after.as_bytes()[close] == b'{' {
            return Err(unbalanced());
        }
        texts.push(&rest[..open]);
        names.push(&after[..close]);
        rest = &after[close + 1..];
    }
    texts.push(rest);
    if names.is_empty() {
        return Ok(Part::Literal(segment.to_string()));
    }
    for name in &names {
        check_name(name.strip_suffix('*').unwrap_or(name), segment)?;
    }
    if let [name] = names[..]
        && let Some(name) = name.strip_suffix('*')
    {
        if !texts.iter().all(|t| t.is_empty()) {
            return Err(format!(
                "`{{{name}*}}` takes whole segments, so it cannot share `{segment}` with text"
            ));
        }
        return Ok(Part::Rest(name.to_string()));
    }
    if let Some(name) = names.iter().find(|n| n.ends_with('*')) {
        return Err(format!(
            "`{{{name}}}` takes whole segments, so it cannot share `{segment}` with another parameter"
        ));
    }
    if texts[1..texts.len() - 1].iter().any(|t| t.is_empty()) {
        return Err(format!(
            "two parameters in `{segment}` need text between them to tell where one ends"
        ));
    }
    Ok(Part::Params(Params {
        prefix: texts[0].to_string(),
        first: names[0].to_string(),
        joined: (texts[1..].iter().zip(&names[1..]))
            .map(|(text, name)| (text.to_string(), name.to_string()))
            .collect(),
        suffix: texts[texts.len() - 1].to_string(),
    }))
}

/// A parameter name: letters, digits, `_`, `-` and `.`, at least one.
fn check_name(name: &str, segment: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err(format!("empty parameter name in `{segment}`"));
    }
    match name
        .chars()
        .find(|c| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.')))
    {
        Some(bad) => Err(format!(
            "parameter name `{name}` may hold only letters, digits, `_`, `-` and `.`, not `{bad}`"
        )),
        None => Ok(()),
    }
}

/// The user's templates, in the order given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Overrides {
    patterns: Vec<Pattern>,
}

impl Overrides {
    /// Overrides from parsed patterns (duplicates are dropped).
    pub fn new(patterns: Vec<Pattern>) -> Self {
        let mut kept: Vec<Pattern> = Vec::with_capacity(patterns.len());
        for pattern in patterns {
            if !kept.contains(&pattern) {
                kept.push(pattern);
            }
        }
        Self { patterns: kept }
    }

    /// Parses each pattern in turn; the first bad one is the error.
    pub fn parse<'a>(texts: impl IntoIterator<Item = &'a str>) -> Result<Self, PatternError> {
        let patterns = texts
            .into_iter()
            .map(Pattern::parse)
            .collect::<Result<_, _>>()?;
        Ok(Self::new(patterns))
    }

    /// The patterns of a templates file: one per line; blank lines and
    /// lines starting with `#` are skipped. An error says which line.
    ///
    /// ```
    /// use ar_store::template::Overrides;
    /// let text = "# file downloads\n/api/files/{path*}\n\napi.test/v1/{tenant}/items\n";
    /// assert_eq!(Overrides::parse_lines(text).unwrap().len(), 2);
    /// let error = Overrides::parse_lines("/ok\n/bad/{x\n").unwrap_err();
    /// assert_eq!(error.0, 2);
    /// ```
    pub fn parse_lines(text: &str) -> Result<Vec<Pattern>, (usize, PatternError)> {
        text.lines()
            .enumerate()
            .map(|(i, line)| (i + 1, line.trim()))
            .filter(|(_, line)| !line.is_empty() && !line.starts_with('#'))
            .map(|(number, line)| Pattern::parse(line).map_err(|e| (number, e)))
            .collect()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }

    /// How many patterns.
    pub fn len(&self) -> usize {
        self.patterns.len()
    }

    /// The patterns, in order.
    pub fn patterns(&self) -> &[Pattern] {
        &self.patterns
    }

    /// The index of the first pattern `path` on `host` matches.
    pub fn find(&self, host: &str, path: &str) -> Option<usize> {
        if self.patterns.is_empty() {
            return None;
        }
        self.patterns.iter().position(|p| p.matches(host, path))
    }

    /// The template of `path` on `host` if a pattern matches it.
    pub fn template(&self, host: &str, path: &str) -> Option<PathTemplate> {
        let at = self.find(host, path)?;
        Some(self.template_at(at, path, 1))
    }

    /// The template of `path` under pattern `at` (which it matches), with
    /// `samples` flows counted for it.
    pub(crate) fn template_at(&self, at: usize, path: &str, samples: u64) -> PathTemplate {
        self.patterns[at].template_of(path, samples)
    }

    /// The pattern at `at`.
    pub(crate) fn pattern(&self, at: usize) -> &Pattern {
        &self.patterns[at]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problem(text: &str) -> String {
        let error = Pattern::parse(text).unwrap_err();
        assert_eq!(error.pattern, text.trim());
        assert!(error.to_string().contains(text.trim()), "{error}");
        error.problem
    }

    #[test]
    fn patterns_parse_with_and_without_a_host() {
        let p = Pattern::parse(" /api/files/{path*} ").unwrap();
        assert_eq!(p.as_str(), "/api/files/{path*}");
        assert_eq!(p.host(), None);
        let p = Pattern::parse("API.Example.com/v1/{tenant}/items").unwrap();
        assert_eq!(p.host(), Some("api.example.com"));
        let p = Pattern::parse("https://api.example.com:8443/v1/{id}").unwrap();
        assert_eq!(p.host(), Some("api.example.com:8443"));
        assert!(Pattern::parse("/").unwrap().matches("h", "/"));
    }

    #[test]
    fn bad_patterns_say_what_is_wrong() {
        assert!(problem("/files/{path*}/raw").contains("must be the last segment"));
        assert!(problem("/files/{}").contains("empty parameter name"));
        assert!(problem("/files/{*}").contains("empty parameter name"));
        assert!(problem("/files/{path").contains("unbalanced brace"));
        assert!(problem("/files/path}").contains("unbalanced brace"));
        assert!(problem("/files/}path{").contains("unbalanced brace"));
        assert!(problem("/files/{{path}}").contains("unbalanced brace"));
        assert!(problem("/a/{id}/b/{id}").contains("duplicate parameter name `id`"));
        assert!(problem("/a/{id}/b/{id*}").contains("duplicate parameter name `id`"));
        assert!(problem("/files/{a}{b}").contains("need text between them"));
        assert!(problem("/files/v{path*}").contains("takes whole segments"));
        assert!(problem("/files/{a}.{path*}").contains("takes whole segments"));
        assert!(problem("/files/{a}.{}").contains("empty parameter name"));
        assert!(problem("/files/{a b}").contains("may hold only"));
        assert!(problem("files").contains("starting with `/`"));
        assert!(problem("/a//b").contains("empty segment"));
        assert!(problem("{host}.test/a").contains("host"));
        assert!(problem("  ").contains("empty pattern"));
    }

    #[test]
    fn params_match_one_segment_and_rest_the_remaining_ones() {
        let o = Overrides::parse(["/api/files/{path*}", "/users/{id}/avatar"]).unwrap();
        assert_eq!(o.find("h", "/api/files/a/b/c.txt"), Some(0));
        assert_eq!(o.find("h", "/api/files/x.txt"), Some(0));
        assert_eq!(
            o.find("h", "/api/files"),
            None,
            "a rest needs one segment or more"
        );
        assert_eq!(o.find("h", "/api/files/"), None);
        assert_eq!(o.find("h", "/api/other/x.txt"), None);
        assert_eq!(o.find("h", "/users/7/avatar"), Some(1));
        assert_eq!(o.find("h", "/users/7/avatar/big"), None);
        assert_eq!(o.find("h", "/users/avatar"), None);

        let t = o.template("h", "/api/files/a/b/c.txt").unwrap();
        assert_eq!(t.to_string(), "/api/files/{path}");
        let p = t.params().next().unwrap();
        assert!(p.rest);
        assert_eq!(p.evidence.values, ["a/b/c.txt"]);
        assert_eq!(
            p.evidence.rule.to_string(),
            "a user template: /api/files/{path*}"
        );
        let t = o.template("h", "/users/7/avatar/").unwrap();
        assert_eq!(t.to_string(), "/users/{id}/avatar/");
        assert!(!t.params().next().unwrap().rest);
    }

    #[test]
    fn a_segment_holds_text_around_and_between_its_parameters() {
        let o = Overrides::parse([
            "/blacklist.{format}",
            "/stops/{latitude},{longitude}",
            "/t/{topicId}.json",
            "/files/v{version}",
        ])
        .unwrap();
        assert_eq!(o.find("h", "/blacklist.xml"), Some(0));
        assert_eq!(o.find("h", "/blacklist."), None, "a value is never empty");
        assert_eq!(o.find("h", "/categories.xml"), None);
        assert_eq!(o.find("h", "/stops/52.5,13.4"), Some(1));
        assert_eq!(o.find("h", "/stops/52.5"), None);
        assert_eq!(o.find("h", "/stops/,13.4"), None);
        assert_eq!(o.find("h", "/t/271.json"), Some(2));
        assert_eq!(o.find("h", "/t/271.xml"), None);
        assert_eq!(o.find("h", "/files/v2"), Some(3));
        let t = o.template("h", "/blacklist.xml").unwrap();
        assert_eq!(t.to_string(), "/blacklist.{format}");
        let param = t.params().next().unwrap();
        assert_eq!(param.prefix, "blacklist.");
        assert_eq!(param.split_value("blacklist.xml"), Some(vec!["xml"]));
        let t = o.template("h", "/stops/52.5,13.4").unwrap();
        assert_eq!(t.to_string(), "/stops/{latitude},{longitude}");
        let names: Vec<&str> = t.params().next().unwrap().names().collect();
        assert_eq!(names, ["latitude", "longitude"]);
        assert_eq!(
            o.template("h", "/t/271.json").unwrap().to_string(),
            "/t/{topicId}.json"
        );
        // Names are unique across segments and within one.
        assert!(problem("/a/{x}/{y},{x}").contains("duplicate parameter name `x`"));
    }

    #[test]
    fn a_host_limits_a_pattern_to_it() {
        let o = Overrides::parse(["api.test/files/{path*}", "/v1/{tenant}"]).unwrap();
        assert_eq!(o.find("api.test", "/files/a/b"), Some(0));
        assert_eq!(o.find("API.TEST", "/files/a/b"), Some(0));
        assert_eq!(o.find("cdn.test", "/files/a/b"), None);
        assert_eq!(o.find("cdn.test", "/v1/acme"), Some(1));
        assert_eq!(o.find("api.test", "/v1/acme"), Some(1));
    }

    #[test]
    fn the_first_matching_pattern_wins_and_duplicates_go() {
        let o = Overrides::parse(["/a/{x}", "/a/{y}", "/a/{x}", "/{z*}"]).unwrap();
        assert_eq!(o.len(), 3);
        assert_eq!(o.template("h", "/a/1").unwrap().to_string(), "/a/{x}");
        assert_eq!(o.template("h", "/b/1/2").unwrap().to_string(), "/{z}");
    }

    #[test]
    fn an_override_beats_learnt_folding_in_the_templater() {
        use crate::template::Templater;
        let paths = [
            "/repos/rust-lang/cargo/issues",
            "/repos/tokio-rs/tokio/issues",
            "/repos/serde-rs/serde/issues",
            "/files/a/b/c.txt",
            "/files/x.txt",
            "/users/42",
        ];
        let mut t = Templater::default().with_overrides(
            Overrides::parse(["/repos/rust-lang/{repo}/issues", "h/files/{path*}"]).unwrap(),
        );
        let mut key = String::new();
        for path in paths {
            t.observe_shape_key_into("h", path, super::super::SeenCall::default(), &[], &mut key);
            assert_eq!(key, t.shape_key("h", path), "{path}");
        }
        // Learnt folding would give /repos/{owner}/{repo}/issues.
        let cargo = "/repos/rust-lang/cargo/issues";
        assert_eq!(
            t.template("h", cargo).to_string(),
            "/repos/rust-lang/{repo}/issues"
        );
        let explained = t.explain("h", cargo);
        assert_eq!(explained.template, "/repos/rust-lang/{repo}/issues");
        let text = explained.to_string();
        assert!(text.contains("[2] {repo}: a user template: /repos/rust-lang/{repo}/issues (1 samples; e.g. cargo)"), "{text}");
        assert!(
            text.contains("[1] rust-lang: literal, a user template"),
            "{text}"
        );
        // Paths no override matches are templated as before (overridden
        // paths are not learnt from).
        assert_eq!(
            t.template("h", "/repos/tokio-rs/tokio/issues").to_string(),
            "/repos/{owner}/{repo}/issues"
        );
        assert_eq!(t.template("h", "/users/42").to_string(), "/users/{userId}");
        // A host-scoped override, and equal shape keys for one template.
        assert_eq!(
            t.template("h", "/files/a/b/c.txt").to_string(),
            "/files/{path}"
        );
        assert_eq!(
            t.shape_key("h", "/files/a/b/c.txt"),
            t.shape_key("h", "/files/x.txt")
        );
        assert_ne!(
            t.shape_key("h", "/files/x.txt"),
            t.shape_key("h", "/files/x.txt/")
        );
        assert_ne!(
            t.template("other", "/files/a/b/c.txt").to_string(),
            "/files/{path}"
        );
        assert!(!t.set_overrides(t.overrides().clone()));
    }

    #[test]
    fn a_templates_file_skips_comments_and_blank_lines() {
        let patterns = Overrides::parse_lines("# x\n\n  /a/{b}  \n# /not/{a\n/c/{d*}\n").unwrap();
        let texts: Vec<&str> = patterns.iter().map(Pattern::as_str).collect();
        assert_eq!(texts, ["/a/{b}", "/c/{d*}"]);
        let (line, error) = Overrides::parse_lines("/a\n\n/b/{c*}/d\n").unwrap_err();
        assert_eq!(line, 3);
        assert!(error.problem.contains("last segment"), "{error}");
    }
}
