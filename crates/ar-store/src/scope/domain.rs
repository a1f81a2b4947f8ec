//! Registrable domains ("sites") with a small public-suffix approximation.
//!
//! The full Public Suffix List is ~10,000 rules and changes monthly; `ar`
//! only needs to answer "is `api.shop.example` the same site as
//! `www.shop.example`". The approximation: the registrable domain is the
//! last two labels, or three when the last two form a known multi-label
//! public suffix (`co.uk`, `com.au`, `github.io`, ...). IP literals and
//! single-label hosts (`localhost`) are their own site. Names under a
//! suffix missing from the list are grouped one level too high, i.e. two
//! unrelated sites under an unknown shared suffix would count as one; a user
//! can narrow scope with an explicit host list in that case.

/// Second-level public suffixes common enough to matter (country codes with
/// a generic second level, and hosting platforms that give each user a site).
const MULTI_LABEL_SUFFIXES: &[&str] = &[
    "co.uk",
    "org.uk",
    "ac.uk",
    "gov.uk",
    "ltd.uk",
    "plc.uk",
    "me.uk",
    "net.uk",
    "sch.uk",
    "nhs.uk",
    "com.au",
    "net.au",
    "org.au",
    "edu.au",
    "gov.au",
    "co.nz",
    "org.nz",
    "net.nz",
    "govt.nz",
    "co.jp",
    "ne.jp",
    "or.jp",
    "ac.jp",
    "go.jp",
    "co.kr",
    "or.kr",
    "com.cn",
    "net.cn",
    "org.cn",
    "gov.cn",
    "com.br",
    "net.br",
    "org.br",
    "gov.br",
    "com.mx",
    "org.mx",
    "com.ar",
    "com.tr",
    "org.tr",
    "gov.tr",
    "co.in",
    "net.in",
    "org.in",
    "gov.in",
    "ac.in",
    "co.za",
    "org.za",
    "gov.za",
    "com.sg",
    "edu.sg",
    "gov.sg",
    "com.hk",
    "org.hk",
    "com.tw",
    "org.tw",
    "com.my",
    "com.ph",
    "com.vn",
    "co.id",
    "or.id",
    "co.il",
    "org.il",
    "com.ua",
    "co.th",
    "in.th",
    "com.pl",
    "com.es",
    "com.pt",
    "co.at",
    "or.at",
    "com.ru",
    "com.sa",
    "com.eg",
    "github.io",
    "gitlab.io",
    "herokuapp.com",
    "netlify.app",
    "vercel.app",
    "pages.dev",
    "workers.dev",
    "web.app",
    "firebaseapp.com",
    "appspot.com",
    "azurewebsites.net",
    "cloudfront.net",
    "blogspot.com",
    "s3.amazonaws.com",
    "fly.dev",
    "onrender.com",
    "ngrok.io",
    "ngrok-free.app",
    "glitch.me",
    "repl.co",
];

/// The registrable domain of `host` (lowercase, port and brackets removed).
///
/// ```
/// use ar_store::scope::registrable_domain;
/// assert_eq!(registrable_domain("API.Shop.test:8443"), "shop.test");
/// assert_eq!(registrable_domain("www.bbc.co.uk"), "bbc.co.uk");
/// assert_eq!(registrable_domain("alice.github.io"), "alice.github.io");
/// assert_eq!(registrable_domain("127.0.0.1"), "127.0.0.1");
/// assert_eq!(registrable_domain("localhost"), "localhost");
/// ```
pub fn registrable_domain(host: &str) -> String {
    let host = strip_port(host).trim_end_matches('.').to_ascii_lowercase();
    if is_ip_literal(&host) || !host.contains('.') {
        return host;
    }
    let labels: Vec<&str> = host.split('.').collect();
    let n = labels.len();
    let last_two = labels[n - 2..].join(".");
    let take = if MULTI_LABEL_SUFFIXES.contains(&last_two.as_str()) {
        3
    } else if n >= 3 && MULTI_LABEL_SUFFIXES.contains(&labels[n - 3..].join(".").as_str()) {
        4
    } else {
        2
    };
    labels[n.saturating_sub(take)..].join(".")
}

/// `host` without a `:port` suffix and without IPv6 brackets.
pub(crate) fn strip_port(host: &str) -> &str {
    if let Some(rest) = host.strip_prefix('[') {
        return rest.split(']').next().unwrap_or(rest);
    }
    match host.rsplit_once(':') {
        Some((h, port)) if !h.contains(':') && port.bytes().all(|b| b.is_ascii_digit()) => h,
        _ => host,
    }
}

fn is_ip_literal(host: &str) -> bool {
    host.parse::<std::net::IpAddr>().is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_subdomains_into_sites() {
        assert_eq!(registrable_domain("a.b.shop.test"), "shop.test");
        assert_eq!(registrable_domain("shop.test."), "shop.test");
        assert_eq!(
            registrable_domain("bucket.s3.amazonaws.com"),
            "bucket.s3.amazonaws.com"
        );
        assert_eq!(registrable_domain("[::1]:8080"), "::1");
        assert_eq!(registrable_domain("metrics.test"), "metrics.test");
        assert_eq!(strip_port("shop.test:443"), "shop.test");
    }
}
