//! Two endpoints made one: the user's template, or the narrowest one that
//! covers both (`/a/{x}` and `/a/b` → `/a/{x}`; `/a/b` and `/a/b/c` →
//! `/a/{path*}`), checked against every path either endpoint saw.

use std::collections::BTreeSet;

use ar_store::store::Endpoint;
use ar_store::template::Pattern;

use super::{join, name_after, parts};

/// The one pattern under which `a` and `b` are one endpoint.
pub(super) fn patterns(
    a: &Endpoint,
    b: &Endpoint,
    template: Option<&str>,
) -> Result<Vec<String>, String> {
    if a.id() == b.id() {
        return Err(format!("{} is one endpoint already", a.key()));
    }
    if a.host() != b.host() {
        return Err(format!(
            "{} and {} are on two hosts: a template is one host's",
            a.host(),
            b.host()
        ));
    }
    let text = match template.map(str::trim) {
        Some(path) if path.starts_with('/') => format!("{}{path}", a.host()),
        Some(other) => return Err(format!("`{other}` is no path: start it with `/`")),
        None => join(
            a.host(),
            &narrowest(&parts(a.template()), &parts(b.template())),
        ),
    };
    let pattern = Pattern::parse(&text).map_err(|e| e.to_string())?;
    for endpoint in [a, b] {
        if !endpoint
            .concrete_paths()
            .keys()
            .all(|path| pattern.matches(endpoint.host(), path))
        {
            return Err(format!(
                "`{}` does not cover every path of {}",
                text.trim_start_matches(a.host()),
                endpoint.template()
            ));
        }
    }
    Ok(vec![text])
}

/// The narrowest template covering two: equal segments kept, differing
/// ones made parameters (named as either side named it); when the lengths
/// differ, a parameter for the rest of the path from the first difference
/// (and at the latest from the shorter one's last segment, since it covers
/// one segment or more).
fn narrowest(x: &[String], y: &[String]) -> Vec<String> {
    let is_rest = |s: &String| s.ends_with("*}");
    let n = x.len().min(y.len());
    let ragged = x.len() != y.len() || x.iter().chain(y).any(is_rest);
    let kept = if ragged {
        let first_difference = (0..n)
            .find(|&i| x[i] != y[i] || is_rest(&x[i]))
            .unwrap_or(n);
        first_difference.min(n.saturating_sub(1))
    } else {
        n
    };
    let mut names = BTreeSet::new();
    let mut merged: Vec<String> = Vec::with_capacity(kept + 1);
    for i in 0..kept {
        let segment = if x[i] == y[i] {
            x[i].clone()
        } else {
            let name = [&x[i], &y[i]]
                .into_iter()
                .find_map(|s| name_of(s))
                .map_or_else(|| name_after(&merged), str::to_owned);
            format!("{{{}}}", unique(&mut names, name))
        };
        if let Some(name) = name_of(&segment) {
            names.insert(name.to_owned());
        }
        merged.push(segment);
    }
    if ragged {
        let name = [x.last(), y.last()]
            .into_iter()
            .flatten()
            .filter(|s| is_rest(s))
            .find_map(|s| name_of(s))
            .unwrap_or("path")
            .to_owned();
        merged.push(format!("{{{}*}}", unique(&mut names, name)));
    }
    merged
}

/// The name of a parameter segment (`{userId}`, `{path*}`, `{id}.json`).
fn name_of(segment: &str) -> Option<&str> {
    let inner = segment.strip_prefix('{')?;
    inner.split(['}', '*']).next()
}

/// `name`, or `name2`, `name3`... when taken.
fn unique(names: &mut BTreeSet<String>, name: String) -> String {
    let free = (1..)
        .map(|n| {
            if n == 1 {
                name.clone()
            } else {
                format!("{name}{n}")
            }
        })
        .find(|candidate| !names.contains(candidate))
        .unwrap_or(name);
    names.insert(free.clone());
    free
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::correction::tests::{key_of, store};
    use crate::correction::{Correction, patterns as checked};

    fn merge(
        paths: &[&str],
        a: &str,
        b: &str,
        template: Option<&str>,
    ) -> Result<Vec<String>, String> {
        let store = store(paths);
        checked(
            &store,
            &Correction::Merge {
                key: key_of(&store, a),
                with: key_of(&store, b),
                template: template.map(str::to_owned),
            },
        )
    }

    #[test]
    fn two_endpoints_merge_under_the_narrowest_template_or_the_users() {
        let paths = [
            "/v1/users/41",
            "/v1/users/42",
            "/v1/accounts/7",
            "/v1/accounts/8",
        ];
        let (users, accounts) = ("/v1/users/{userId}", "/v1/accounts/{accountId}");
        assert_eq!(
            merge(&paths, users, accounts, None).unwrap(),
            ["api.shop.test/v1/{param}/{userId}"]
        );
        assert_eq!(
            merge(&paths, accounts, users, Some("/v1/{kind}/{id}")).unwrap(),
            ["api.shop.test/v1/{kind}/{id}"]
        );
        let error = merge(&paths, users, accounts, Some("/v1/users/{id}")).unwrap_err();
        assert!(
            error.contains("does not cover every path of /v1/accounts/{accountId}"),
            "{error}"
        );
        let error = merge(&paths, users, accounts, Some("users")).unwrap_err();
        assert!(error.contains("no path"), "{error}");
        let error = merge(&paths, users, users, None).unwrap_err();
        assert!(error.contains("one endpoint already"), "{error}");
    }

    #[test]
    fn endpoints_of_two_lengths_merge_under_a_rest_parameter() {
        let paths = ["/docs/guide", "/docs/guide/install"];
        assert_eq!(
            merge(&paths, "/docs/guide", "/docs/guide/install", None).unwrap(),
            ["api.shop.test/docs/{path*}"]
        );
        assert_eq!(
            narrowest(
                &["a".into(), "{id}".into(), "x".into()],
                &["b".into(), "{id}".into(), "y".into()]
            ),
            ["{param}", "{id}", "{param2}"]
        );
    }
}
