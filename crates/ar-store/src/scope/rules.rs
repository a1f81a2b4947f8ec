//! The built-in lists: tracker hosts, static-asset extensions and types.

/// Domains (and their subdomains) of analytics, ads and telemetry services.
/// Sorted, for binary search.
const TRACKER_DOMAINS: &[&str] = &[
    "adnxs.com",
    "ads-twitter.com",
    "adservice.google.com",
    "adsrvr.org",
    "amplitude.com",
    "analytics.google.com",
    "analytics.tiktok.com",
    "analytics.twitter.com",
    "bat.bing.com",
    "browser-intake-datadoghq.com",
    "browser-intake-datadoghq.eu",
    "bugsnag.com",
    "cdn.mouseflow.com",
    "clarity.ms",
    "connect.facebook.net",
    "criteo.com",
    "criteo.net",
    "doubleclick.net",
    "events.launchdarkly.com",
    "fullstory.com",
    "google-analytics.com",
    "googleadservices.com",
    "googlesyndication.com",
    "googletagmanager.com",
    "googletagservices.com",
    "heap.io",
    "heapanalytics.com",
    "hotjar.com",
    "hotjar.io",
    "i.posthog.com",
    "ingest.sentry.io",
    "matomo.cloud",
    "mixpanel.com",
    "mxpnl.com",
    "newrelic.com",
    "nr-data.net",
    "optimizely.com",
    "outbrain.com",
    "pixel.wp.com",
    "plausible.io",
    "px.ads.linkedin.com",
    "quantserve.com",
    "rubiconproject.com",
    "scorecardresearch.com",
    "segment.com",
    "segment.io",
    "sentry-cdn.com",
    "sessions.bugsnag.com",
    "snap.licdn.com",
    "stats.wp.com",
    "taboola.com",
];

/// First labels that name a telemetry host on any domain (`metrics.shop.test`).
const TRACKER_LABELS: &[&str] = &[
    "metrics",
    "telemetry",
    "analytics",
    "stats",
    "beacon",
    "beacons",
    "tracking",
    "pixel",
];

/// Paths that are trackers on an otherwise ordinary host.
const TRACKER_PATHS: &[(&str, &str)] = &[
    ("facebook.com", "/tr"),
    ("google.com", "/ads/"),
    ("google.com", "/pagead/"),
];

/// Whether `host` (lowercase, no port) or `host` + `path` is a tracker, by
/// the list or by its name.
#[cfg(test)]
pub(crate) fn is_tracker(host: &str, path: &str) -> bool {
    is_tracker_domain(host)
        || named_like_telemetry(host)
        || is_tracker_path(tracker_path_domains(host), path)
}

/// Whether `host` (lowercase, no port) is on the list of analytics, ads and
/// telemetry services (or under one of their domains), whatever the path.
/// The list names services, so it holds whatever their traffic looks like.
pub(crate) fn is_tracker_domain(host: &str) -> bool {
    // The host and each parent domain (`a.b.c`, `b.c`, `c`), looked up in the sorted list.
    let mut suffix = host;
    loop {
        if TRACKER_DOMAINS.binary_search(&suffix).is_ok() {
            return true;
        }
        match suffix.split_once('.') {
            Some((_, rest)) => suffix = rest,
            None => break,
        }
    }
    false
}

/// Whether `host`'s first label names a telemetry sink (`metrics.shop.test`).
/// A name is only a guess: an API may live on such a host
/// (`tracking.api.vendor.test`), so the scope weighs the traffic too.
pub(crate) fn named_like_telemetry(host: &str) -> bool {
    let first = host.split('.').next().unwrap_or("");
    host.contains('.') && TRACKER_LABELS.contains(&first)
}

/// Which entries of the tracker path list `host` falls under (a bit per entry),
/// so a cached host needs only the path compared.
pub(crate) fn tracker_path_domains(host: &str) -> u8 {
    let under = |domain: &str| {
        host == domain || host.strip_suffix(domain).is_some_and(|p| p.ends_with('.'))
    };
    TRACKER_PATHS
        .iter()
        .enumerate()
        .filter(|(_, (d, _))| under(d))
        .fold(0, |bits, (i, _)| bits | 1 << i)
}

/// Whether `path` is a tracker path of one of the `domains` ([`tracker_path_domains`]).
pub(crate) fn is_tracker_path(domains: u8, path: &str) -> bool {
    domains != 0
        && TRACKER_PATHS.iter().enumerate().any(|(i, (_, p))| {
            domains & 1 << i != 0 && (path == p.trim_end_matches('/') || path.starts_with(p))
        })
}

const STATIC_EXTENSIONS: &[&str] = &[
    "css", "js", "mjs", "cjs", "map", "png", "jpg", "jpeg", "gif", "webp", "avif", "svg", "ico",
    "bmp", "tif", "tiff", "woff", "woff2", "ttf", "otf", "eot", "mp4", "webm", "mp3", "wav", "ogg",
    "m4a", "m4v", "mov", "wasm",
];

/// Whether the last path segment has a static-asset extension.
pub(crate) fn is_static_path(path: &str) -> bool {
    // One walk back from the end to the last `.` or `/`, whichever comes
    // first: an extension is at most five bytes after a `.` that does not
    // start the last segment.
    let b = path.as_bytes();
    let Some(dot) = b.iter().rposition(|c| *c == b'.' || *c == b'/') else {
        return false;
    };
    let ext = &b[dot + 1..];
    b[dot] == b'.'
        && dot > 0
        && b[dot - 1] != b'/'
        && ext.len() <= 5
        && STATIC_EXTENSIONS
            .iter()
            .any(|e| e.as_bytes().eq_ignore_ascii_case(ext))
}

fn starts_with_ci(text: &str, prefix: &str) -> bool {
    text.len() >= prefix.len()
        && text.as_bytes()[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
}

/// Whether a response content type is a static asset (script, style, image, font, media, wasm).
pub(crate) fn is_static_type(content_type: &str) -> bool {
    const PREFIXES: [&str; 6] = [
        "image/",
        "font/",
        "video/",
        "audio/",
        "application/font",
        "application/x-font",
    ];
    const EXACT: [&str; 7] = [
        "text/css",
        "text/javascript",
        "application/javascript",
        "application/x-javascript",
        "application/ecmascript",
        "application/wasm",
        "application/vnd.ms-fontobject",
    ];
    // Not lowercased: compared ignoring case.
    let m = crate::store::media_type(content_type);
    PREFIXES.iter().any(|p| starts_with_ci(m, p)) || EXACT.iter().any(|e| m.eq_ignore_ascii_case(e))
}

/// Whether a response content type is an HTML document.
pub(crate) fn is_html_type(content_type: &str) -> bool {
    // Not lowercased: compared ignoring case.
    let m = crate::store::media_type(content_type);
    m.eq_ignore_ascii_case("text/html") || m.eq_ignore_ascii_case("application/xhtml+xml")
}

/// Whether `content_type` is a JSON document (`application/json`,
/// `application/problem+json`, ...): what an API answers, not a beacon.
pub(crate) fn is_json_type(content_type: &str) -> bool {
    crate::store::claims_json(crate::store::media_type(content_type))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn static_assets_by_extension_and_type() {
        assert!(is_static_path("/static/app.3f2a.js"));
        assert!(is_static_path("/fonts/Inter.WOFF2"));
        assert!(!is_static_path("/api/users.json"));
        assert!(!is_static_path("/.well-known"));
        assert!(is_static_path("app.js") && is_static_path("/a/..js") && is_static_path("/b.JS"));
        assert!(!is_static_path(".js") && !is_static_path("/a/.js") && !is_static_path("/a.js/c"));
        assert!(!is_static_path("") && !is_static_path("/") && !is_static_path("/a/b.longer"));
        assert!(is_static_type("image/svg+xml"));
        assert!(is_static_type("text/javascript; charset=utf-8"));
        assert!(!is_static_type("application/json"));
        assert!(is_html_type("Text/HTML; charset=UTF-8"));
    }

    #[test]
    fn tracker_list_is_sorted_for_binary_search() {
        assert!(TRACKER_DOMAINS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn tracker_rules_do_not_catch_lookalikes() {
        assert!(is_tracker("metrics.test", "/"));
        assert!(!is_tracker("metrics", "/"));
        assert!(!is_tracker("notsegment.io", "/"));
        assert!(!is_tracker("shop.test", "/tr"));
        assert!(!is_tracker("api.shop.test", "/metrics"));
    }
}
