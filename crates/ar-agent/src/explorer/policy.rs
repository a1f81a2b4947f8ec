//! What the explorer may touch: same-site links, safe actions, and how many
//! URLs of one shape are worth visiting.

use std::collections::BTreeMap;

use ar_flow::segment::is_cache_buster;
use ar_store::template::classify_segment;
use url::Url;

/// Phrases that make an action destructive in a label though they are not
/// verbs a request path would carry (paying, ordering, sending to people).
/// The verbs themselves (delete, clear, disable, sign out, ...) are
/// [`ar_flow::destructive`]'s, shared with the proxy's lock.
const DESTRUCTIVE_PHRASES: &[&str] = &[
    "close account",
    "log off",
    "pay",
    "purchase",
    "place order",
    "buy",
    "confirm order",
    "transfer",
    "send",
];

/// Whether an action named `name` (or a link to `href`) looks destructive.
/// A dialog's plain "Cancel" is not: it is how a dialog is left alone.
pub(crate) fn is_destructive(name: &str, href: Option<&str>) -> bool {
    if is_dismissal(name) {
        return false;
    }
    let name = name.to_lowercase();
    let words: Vec<&str> = name
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let joined = words.join(" ");
    let phrase = DESTRUCTIVE_PHRASES.iter().any(|w| {
        if w.contains(' ') {
            joined.contains(w)
        } else {
            words.contains(w)
        }
    });
    let href_hit = href.is_some_and(|h| {
        let h = h.to_lowercase();
        ["logout", "log-out", "signout", "sign-out", "/delete"]
            .iter()
            .any(|w| h.contains(w))
    });
    phrase || ar_flow::destructive::reads_destructive(&name) || href_hit
}

/// The site of a host: its registrable domain (`shop.test` for `api.shop.test`).
pub(crate) fn site_of(host: &str) -> String {
    ar_store::scope::registrable_domain(host)
}

/// An in-page link (`#reviews`) to the page itself: a tab or an anchor that
/// scripts react to, so it is clicked rather than visited.
pub(crate) fn is_in_page_link(href: &str, page: &Url) -> bool {
    let Ok(target) = Url::parse(href) else {
        return false;
    };
    let Some(fragment) = target.fragment() else {
        return false;
    };
    if fragment.starts_with('/') || fragment.starts_with('!') {
        return false;
    }
    let mut base = target.clone();
    base.set_fragment(None);
    let mut here = page.clone();
    here.set_fragment(None);
    base == here
}

/// A link worth following: http(s), on the same site, not a download.
pub(crate) fn followable(href: &str, site: &str) -> Option<Url> {
    let mut url = Url::parse(href).ok()?;
    if !matches!(url.scheme(), "http" | "https") {
        return None;
    }
    if site_of(url.host_str()?) != site {
        return None;
    }
    let path = url.path().to_ascii_lowercase();
    const DOWNLOADS: &[&str] = &[
        ".pdf", ".zip", ".gz", ".tar", ".dmg", ".exe", ".apk", ".iso", ".mp4", ".mp3",
    ];
    if DOWNLOADS.iter().any(|ext| path.ends_with(ext)) {
        return None;
    }
    // In-page anchors (`#reviews`) are not pages; hash routes (`#/orders`) are.
    if url
        .fragment()
        .is_some_and(|f| !f.starts_with('/') && !f.starts_with('!'))
    {
        url.set_fragment(None);
    }
    Some(url)
}

/// The shape of a URL: id-like path segments (the same classifier the
/// templater uses: integers, UUIDs, hashes, prefixed ids, ...) become
/// `{kind}`, other digits `{n}`, query values are dropped and keys sorted.
/// A hash route (`#/experiments/2?tab=runs`) is shaped the same way.
/// Visiting a few URLs per shape gives templating its second sample without
/// crawling every product page.
pub(crate) fn url_shape(url: &Url) -> String {
    let mut shape = url.host_str().unwrap_or("").to_owned();
    shape.push_str(&path_shape(url.path(), url.query()));
    if let Some(fragment) = url.fragment() {
        shape.push('#');
        match fragment.strip_prefix('/').or(fragment.strip_prefix("!/")) {
            Some(route) => {
                let (path, query) = route
                    .split_once('?')
                    .map_or((route, None), |(p, q)| (p, Some(q)));
                shape.push_str(&path_shape(&format!("/{path}"), query));
            }
            None => shape.push_str(&digits_to_n(fragment)),
        }
    }
    shape
}

/// `/products/{integer}?page&q`: a path's segments classified, a query's keys
/// sorted (a cache-buster, `?1795950405958`, is no key).
fn path_shape(path: &str, query: Option<&str>) -> String {
    let segments: Vec<String> = path
        .split('/')
        .map(|segment| match classify_segment(segment) {
            Some(kind) => format!("{{{}}}", kind.as_str()),
            None => digits_to_n(segment),
        })
        .collect();
    let mut shape = segments.join("/");
    let keys: BTreeMap<String, ()> = url::form_urlencoded::parse(query.unwrap_or("").as_bytes())
        .filter(|(k, v)| !is_cache_buster(k, v))
        .map(|(k, _)| (k.into_owned(), ()))
        .collect();
    if !keys.is_empty() {
        shape.push('?');
        shape.push_str(&keys.into_keys().collect::<Vec<_>>().join("&"));
    }
    shape
}

/// The page a URL shows, for "have I been here?": the URL without the query
/// parameters that do not change the page, in the query or in a hash route.
/// Those are parameters whose value is a location (`returnTo=/experiments`,
/// `next=https://…`), which say where to go afterwards, and parameters
/// holding text the explorer typed itself (its own search terms). An empty
/// hash route (`/#/`) is the page without one: a hash-routed app sends `/`
/// there, and its links point back to `#/`.
pub(crate) fn page_key(url: &Url, typed: &[String]) -> Url {
    let keep = |value: &str| {
        let location =
            value.starts_with('/') || value.starts_with("http://") || value.starts_with("https://");
        let own = typed
            .iter()
            .any(|t| !t.is_empty() && value.contains(t.as_str()));
        !location && !own
    };
    let filter = |query: &str| -> String {
        let pairs: Vec<(String, String)> = url::form_urlencoded::parse(query.as_bytes())
            .filter(|(_, v)| keep(v))
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect();
        url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(pairs)
            .finish()
    };
    let mut key = url.clone();
    if let Some(query) = url.query() {
        let kept = filter(query);
        key.set_query((!kept.is_empty()).then_some(kept.as_str()));
    }
    if let Some((route, query)) = url.fragment().and_then(|f| f.split_once('?')) {
        let kept = filter(query);
        let fragment = if kept.is_empty() {
            route.to_owned()
        } else {
            format!("{route}?{kept}")
        };
        key.set_fragment(Some(&fragment));
    }
    if matches!(key.fragment(), Some("" | "/" | "!/")) {
        key.set_fragment(None);
    }
    key
}

/// A page's place without its query, in the URL and in a hash route: the
/// same list sorted or filtered another way is the same place.
pub(crate) fn page_place(url: &Url) -> Url {
    let mut place = url.clone();
    place.set_query(None);
    if let Some((route, _)) = url.fragment().and_then(|f| f.split_once('?')) {
        let route = route.to_owned();
        place.set_fragment(Some(&route));
    }
    place
}

/// The families a page belongs to, each with the value the page carries
/// there: pages whose addresses differ in one segment only, past the first
/// (`/blocks/catalog/secret` beside `/blocks/catalog/slack-webhook`, and
/// `/blocks/catalog/secret/create` beside `/blocks/catalog/s3/create`),
/// each family named by the address's shape with that segment as `*`. A
/// hash route counts by its route. The first segment makes no family: the
/// pages right under the root are the site's sections.
pub(crate) fn families(url: &Url) -> Vec<(String, String)> {
    let route = url
        .fragment()
        .and_then(|f| f.strip_prefix('/').or(f.strip_prefix("!/")))
        .map(|route| route.split_once('?').map_or(route, |(path, _)| path));
    let path = route.unwrap_or_else(|| url.path().trim_start_matches('/'));
    let segments: Vec<&str> = path.trim_end_matches('/').split('/').collect();
    let mut base = url.clone();
    base.set_query(None);
    (1..segments.len())
        .filter(|&at| !segments[at].is_empty())
        .map(|at| {
            let mut masked = segments.clone();
            masked[at] = "*";
            let masked = masked.join("/");
            let mut key = base.clone();
            match route {
                Some(_) => key.set_fragment(Some(&format!("/{masked}"))),
                None => {
                    key.set_path(&format!("/{masked}"));
                    key.set_fragment(None);
                }
            }
            (url_shape(&key), segments[at].to_owned())
        })
        .collect()
}

/// Whether a button only closes what it sits in (a dialog's "Cancel"): never
/// the button that submits a form.
pub(crate) fn is_dismissal(name: &str) -> bool {
    let name = name.trim().to_lowercase();
    matches!(
        name.as_str(),
        "cancel"
            | "close"
            | "dismiss"
            | "back"
            | "no"
            | "not now"
            | "skip"
            | "×"
            | "x"
            | "✕"
            | "close dialog"
            | "close modal"
    )
}

/// `text` with each run of digits as `{n}`.
pub(crate) fn digits_to_n(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_digits = false;
    for c in text.chars() {
        if c.is_ascii_digit() {
            if !in_digits {
                out.push_str("{n}");
            }
            in_digits = true;
        } else {
            out.push(c);
            in_digits = false;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn destructive_names_are_recognised_by_word() {
        for name in [
            "Delete item",
            "Sign out",
            "Remove from cart",
            "Pay now",
            "Place order",
            "LOG OUT",
            "Clear all demo data",
            "Clear",
            "Disable",
            "Archive project",
            "Terminate instance",
            "Shut down",
            "Restart server",
            "Interrupt",
            "Cancel order",
            "Send message",
            "Buy now",
            "Revoke token",
        ] {
            assert!(is_destructive(name, None), "{name}");
        }
        for name in [
            "Payment methods",
            "Display options",
            "Search",
            "Add to cart",
            "Save address",
            "Reviews",
            "Archived projects",
            "Disabled users",
            "Cancel",
            "Close",
        ] {
            assert!(!is_destructive(name, None), "{name}");
        }
        assert!(is_destructive("Bye", Some("https://shop.test/logout")));
    }

    #[test]
    fn only_same_site_pages_are_followed() {
        assert!(followable("https://api.shop.test/docs", "shop.test").is_some());
        assert!(followable("https://evil.test/", "shop.test").is_none());
        assert!(followable("mailto:a@shop.test", "shop.test").is_none());
        assert!(followable("https://shop.test/manual.pdf", "shop.test").is_none());
        let anchor = followable("https://shop.test/p/1#reviews", "shop.test").unwrap();
        assert_eq!(anchor.as_str(), "https://shop.test/p/1");
        let route = followable("https://shop.test/#/orders", "shop.test").unwrap();
        assert_eq!(route.fragment(), Some("/orders"));
    }

    #[test]
    fn url_shapes_ignore_ids_and_query_values() {
        let a = Url::parse("https://shop.test/products/12?page=2&q=mug").unwrap();
        let b = Url::parse("https://shop.test/products/7?q=lamp&page=9").unwrap();
        let c = Url::parse("https://shop.test/products/7/reviews").unwrap();
        assert_eq!(url_shape(&a), url_shape(&b));
        assert_ne!(url_shape(&a), url_shape(&c));
        assert_eq!(url_shape(&a), "shop.test/products/{integer}?page&q");
        let polled = Url::parse("https://shop.test/api/kernels?1795950405958").unwrap();
        assert_eq!(url_shape(&polled), "shop.test/api/kernels");
        let r1 =
            Url::parse("https://shop.test/reviews/8225cbc8-16ff-4f44-8e90-938858034887").unwrap();
        let r2 =
            Url::parse("https://shop.test/reviews/b41808ba-5028-426c-b9f7-09565975af59").unwrap();
        assert_eq!(url_shape(&r1), url_shape(&r2));
        assert_eq!(url_shape(&r1), "shop.test/reviews/{uuid}");
        let slug = Url::parse("https://shop.test/projects/acme").unwrap();
        assert_ne!(
            url_shape(&slug),
            url_shape(&Url::parse("https://shop.test/projects/globex").unwrap())
        );
    }

    #[test]
    fn hash_routes_are_shaped_like_paths() {
        let shape = |u: &str| url_shape(&Url::parse(u).unwrap());
        assert_eq!(
            shape("https://ml.test/#/experiments/2/traces?workflowType=genai&b=1"),
            "ml.test/#/experiments/{integer}/traces?b&workflowType"
        );
        assert_eq!(
            shape("https://ml.test/#/experiments/7/traces?workflowType=classic"),
            shape("https://ml.test/#/experiments/2/traces?workflowType=genai")
        );
        assert_eq!(
            shape("https://shop.test/p/1#reviews"),
            "shop.test/p/{integer}#reviews"
        );
    }

    #[test]
    fn return_to_urls_and_own_search_terms_do_not_make_a_new_page() {
        let key = |u: &str| page_key(&Url::parse(u).unwrap(), &["lamp".to_owned()]).to_string();
        assert_eq!(
            key("https://ml.test/#/settings/general?returnTo=%2Fexperiments%3Fq%3D1"),
            "https://ml.test/#/settings/general"
        );
        assert_eq!(
            key("https://ml.test/#/settings/general?returnTo=%2Fprompts"),
            key("https://ml.test/#/settings/general?returnTo=%2Fgateway")
        );
        assert_eq!(
            key("https://ml.test/#/experiments?experimentSearchFilter=lamp"),
            "https://ml.test/#/experiments"
        );
        assert_eq!(
            key("https://shop.test/login?next=https%3A%2F%2Fshop.test%2Fcart&plan=pro"),
            "https://shop.test/login?plan=pro"
        );
        assert_eq!(key("https://ml.test/#/"), key("https://ml.test/"));
        assert_eq!(key("https://ml.test/app#!/"), "https://ml.test/app");
        assert_ne!(key("https://ml.test/#/models"), key("https://ml.test/"));
        assert_eq!(
            key("https://shop.test/products?category=kitchen"),
            "https://shop.test/products?category=kitchen",
            "a filter the page offers is a page of its own"
        );
    }

    #[test]
    fn pages_that_differ_in_one_segment_are_a_family_and_the_sections_of_a_site_are_not() {
        let families = |u: &str| families(&Url::parse(u).unwrap());
        let secret = families("https://app.test/blocks/catalog/secret?tab=2");
        let s3 = families("https://app.test/blocks/catalog/s3/");
        assert_eq!(secret.len(), 2, "{secret:?}");
        assert_eq!(secret[1].1, "secret");
        assert_eq!(secret[1].0, s3[1].0, "one level below the same page");
        assert_ne!(
            secret[0].0, s3[0].0,
            "their second segments are alike, not they"
        );
        let create =
            |slug: &str| families(&format!("https://app.test/blocks/catalog/{slug}/create"));
        assert_eq!(
            create("secret")[1],
            (create("s3")[1].0.clone(), "secret".to_owned())
        );
        let hash = families("https://app.test/#/settings/webhooks");
        assert_eq!(hash.len(), 1);
        assert_eq!(hash[0].1, "webhooks");
        assert_ne!(
            hash[0].0,
            families("https://app.test/settings/webhooks")[0].0
        );
        assert!(families("https://app.test/runs").is_empty());
        assert!(families("https://app.test/#/experiments").is_empty());
        assert!(families("https://app.test/").is_empty());
    }

    #[test]
    fn a_place_is_a_page_without_its_sorting_and_filters() {
        let place = |u: &str| page_place(&Url::parse(u).unwrap()).to_string();
        assert_eq!(
            place("https://ml.test/#/experiments/4/runs?orderByKey=start&startTime=ALL"),
            "https://ml.test/#/experiments/4/runs"
        );
        assert_eq!(
            place("https://shop.test/products?page=2#reviews"),
            "https://shop.test/products#reviews"
        );
    }

    #[test]
    fn dismissals_are_not_submit_buttons() {
        for name in ["Cancel", "Close", " back ", "×"] {
            assert!(is_dismissal(name), "{name}");
        }
        for name in ["Create", "Cancel order", "Save", "Close account"] {
            assert!(!is_dismissal(name), "{name}");
        }
    }

    #[test]
    fn fragment_links_to_the_same_page_are_in_page() {
        let page = Url::parse("https://shop.test/products/3#questions").unwrap();
        assert!(is_in_page_link(
            "https://shop.test/products/3#reviews",
            &page
        ));
        assert!(!is_in_page_link(
            "https://shop.test/products/4#reviews",
            &page
        ));
        assert!(!is_in_page_link(
            "https://shop.test/#/orders",
            &Url::parse("https://shop.test/").unwrap()
        ));
        assert!(!is_in_page_link("https://shop.test/products/3", &page));
    }
}
