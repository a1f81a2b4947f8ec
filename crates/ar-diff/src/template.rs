//! Path templates (`/users/{id}/files/{name}.{ext}`): parsing, the key two templates are
//! matched by, and matching one segment of a concrete path.
//!
//! Parameter names do not matter to a template's identity: `/users/{id}` and
//! `/users/{userId}` are one path, since a client sends the same request to both. The key
//! writes every parameter as `{}`, also inside a segment (`{}.json`, `{}:start`).

/// A path template split into segments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PathTemplate {
    pub(crate) segments: Vec<Segment>,
}

/// One `/`-separated segment of a template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Segment {
    /// Text only: `users`.
    Literal(String),
    /// One parameter for the whole segment: `{id}`.
    Param(String),
    /// Text and parameters: `{name}.{ext}`, `v{version}`, `{id}:start`.
    Mixed(Vec<Piece>),
}

/// A piece of a mixed segment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Piece {
    /// Text that must appear as written.
    Literal(String),
    /// A parameter: at least one character.
    Param(String),
}

impl PathTemplate {
    /// Splits `path` (`/a/{b}`) into segments; a leading `/` is optional.
    pub(crate) fn parse(path: &str) -> PathTemplate {
        let trimmed = path.strip_prefix('/').unwrap_or(path);
        let segments = if trimmed.is_empty() && !path.is_empty() {
            Vec::new()
        } else {
            trimmed.split('/').map(parse_segment).collect()
        };
        PathTemplate { segments }
    }

    /// The template with every parameter written `{}`: equal keys are the same path.
    pub(crate) fn key(&self) -> String {
        let mut key = String::new();
        for segment in &self.segments {
            key.push('/');
            match segment {
                Segment::Literal(text) => key.push_str(text),
                Segment::Param(_) => key.push_str("{}"),
                Segment::Mixed(pieces) => {
                    for piece in pieces {
                        match piece {
                            Piece::Literal(text) => key.push_str(text),
                            Piece::Param(_) => key.push_str("{}"),
                        }
                    }
                }
            }
        }
        if key.is_empty() {
            key.push('/');
        }
        key
    }

    /// The parameter names, left to right.
    pub(crate) fn param_names(&self) -> Vec<&str> {
        let mut names = Vec::new();
        for segment in &self.segments {
            match segment {
                Segment::Literal(_) => {}
                Segment::Param(name) => names.push(name.as_str()),
                Segment::Mixed(pieces) => names.extend(pieces.iter().filter_map(|p| match p {
                    Piece::Param(name) => Some(name.as_str()),
                    Piece::Literal(_) => None,
                })),
            }
        }
        names
    }
}

/// `base` (`/api/v2`, or empty) followed by `path` (`/users`), with one `/` between them.
pub(crate) fn join(base: &str, path: &str) -> String {
    let base = base.trim_end_matches('/');
    let path = path.trim_start_matches('/');
    let mut joined = String::with_capacity(base.len() + path.len() + 2);
    if !base.starts_with('/') {
        joined.push('/');
    }
    joined.push_str(base);
    if !joined.ends_with('/') {
        joined.push('/');
    }
    joined.push_str(path);
    joined
}

fn parse_segment(text: &str) -> Segment {
    let mut pieces = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}').map(|c| open + c) else {
            break;
        };
        if open > 0 {
            pieces.push(Piece::Literal(rest[..open].to_owned()));
        }
        pieces.push(Piece::Param(rest[open + 1..close].to_owned()));
        rest = &rest[close + 1..];
    }
    if !rest.is_empty() {
        pieces.push(Piece::Literal(rest.to_owned()));
    }
    match pieces.as_slice() {
        [] => Segment::Literal(String::new()),
        [Piece::Literal(text)] => Segment::Literal(text.clone()),
        [Piece::Param(name)] => Segment::Param(name.clone()),
        _ => Segment::Mixed(pieces),
    }
}

/// Matches one concrete segment against a mixed segment's pieces; the parameters' values,
/// left to right, on a match. A parameter takes at least one character, as few as it can
/// while the rest still matches.
pub(crate) fn match_pieces<'t>(pieces: &[Piece], text: &'t str) -> Option<Vec<&'t str>> {
    let mut values = Vec::new();
    match_from(pieces, text, &mut values).then_some(values)
}

fn match_from<'t>(pieces: &[Piece], text: &'t str, values: &mut Vec<&'t str>) -> bool {
    match pieces.split_first() {
        None => text.is_empty(),
        Some((Piece::Literal(lit), rest)) => text
            .strip_prefix(lit.as_str())
            .is_some_and(|after| match_from(rest, after, values)),
        Some((Piece::Param(_), rest)) => {
            for (end, _) in text.char_indices().skip(1).chain([(text.len(), ' ')]) {
                if text.is_empty() {
                    break;
                }
                values.push(&text[..end]);
                if match_from(rest, &text[end..], values) {
                    return true;
                }
                values.pop();
            }
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_ignore_parameter_names() {
        let a = PathTemplate::parse("/users/{id}/files/{name}.{ext}");
        let b = PathTemplate::parse("/users/{userId}/files/{file}.{format}");
        assert_eq!(a.key(), "/users/{}/files/{}.{}");
        assert_eq!(a.key(), b.key());
        assert_eq!(a.param_names(), ["id", "name", "ext"]);
        assert_eq!(PathTemplate::parse("/").key(), "/");
        assert_eq!(PathTemplate::parse("/a/").key(), "/a/");
        assert_eq!(PathTemplate::parse("/a/{b").key(), "/a/{b");
    }

    #[test]
    fn joins_base_paths() {
        assert_eq!(join("", "/users"), "/users");
        assert_eq!(join("/api/v2", "/users"), "/api/v2/users");
        assert_eq!(join("/api/v2/", "/users"), "/api/v2/users");
        assert_eq!(join("api", "users"), "/api/users");
        assert_eq!(join("/", "/"), "/");
    }

    #[test]
    fn mixed_segments_match_with_backtracking() {
        let Segment::Mixed(pieces) = parse_segment("{name}.{ext}") else {
            panic!("mixed")
        };
        assert_eq!(match_pieces(&pieces, "a.tar.gz"), Some(vec!["a", "tar.gz"]));
        assert_eq!(match_pieces(&pieces, ".gz"), None);
        assert_eq!(match_pieces(&pieces, "readme"), None);
        let Segment::Mixed(pieces) = parse_segment("{id}:start") else {
            panic!("mixed")
        };
        assert_eq!(match_pieces(&pieces, "i-1:start"), Some(vec!["i-1"]));
        assert_eq!(match_pieces(&pieces, ":start"), None);
        let Segment::Mixed(pieces) = parse_segment("v{n}") else {
            panic!("mixed")
        };
        assert_eq!(match_pieces(&pieces, "v2"), Some(vec!["2"]));
        assert_eq!(match_pieces(&pieces, "é{"), None);
    }
}
