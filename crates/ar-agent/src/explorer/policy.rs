//! What the explorer may touch: same-site links, safe actions, and how many
//! URLs of one shape are worth visiting.

use std::collections::BTreeMap;

use ar_store::template::classify_segment;
use url::Url;

/// Names of actions that change or end state in ways a user would regret
/// (deleting, clearing, disabling, paying, signing out, restarting).
/// Matched on the accessible name, case-insensitively, word by word.
const DESTRUCTIVE_WORDS: &[&str] = &[
    "delete",
    "remove",
    "destroy",
    "discard",
    "erase",
    "log out",
    "logout",
    "log off",
    "sign out",
    "signout",
    "unsubscribe",
    "deactivate",
    "close account",
    "cancel order",
    "cancel subscription",
    "cancel account",
    "pay",
    "purchase",
    "place order",
    "buy now",
    "confirm order",
    "transfer",
    "revoke",
    "reset",
    "clear",
    "wipe",
    "purge",
    "disable",
    "archive",
    "terminate",
    "shut down",
    "shutdown",
    "restart",
    "reboot",
    "interrupt",
];

/// Whether an action named `name` (or a link to `href`) looks destructive.
pub(crate) fn is_destructive(name: &str, href: Option<&str>) -> bool {
    let name = name.to_lowercase();
    let words: Vec<&str> = name
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let joined = words.join(" ");
    let hit = DESTRUCTIVE_WORDS.iter().any(|w| {
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
    hit || href_hit
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
/// Visiting a few URLs per shape gives templating its second sample without
/// crawling every product page.
pub(crate) fn url_shape(url: &Url) -> String {
    let path: Vec<String> = url
        .path()
        .split('/')
        .map(|segment| match classify_segment(segment) {
            Some(kind) => format!("{{{}}}", kind.as_str()),
            None => digits_to_n(segment),
        })
        .collect();
    let mut shape = format!("{}{}", url.host_str().unwrap_or(""), path.join("/"));
    let keys: BTreeMap<String, ()> = url
        .query_pairs()
        .map(|(k, _)| (k.into_owned(), ()))
        .collect();
    if !keys.is_empty() {
        shape.push('?');
        shape.push_str(&keys.into_keys().collect::<Vec<_>>().join("&"));
    }
    if let Some(fragment) = url.fragment() {
        shape.push('#');
        shape.push_str(&digits_to_n(fragment));
    }
    shape
}

fn digits_to_n(text: &str) -> String {
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
