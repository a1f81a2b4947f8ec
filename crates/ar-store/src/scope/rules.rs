//! The built-in lists: tracker hosts, static-asset extensions and types.

/// Domains (and their subdomains) of analytics, ads and telemetry services.
const TRACKER_DOMAINS: &[&str] = &[
    "google-analytics.com",
    "analytics.google.com",
    "googletagmanager.com",
    "googletagservices.com",
    "doubleclick.net",
    "googlesyndication.com",
    "googleadservices.com",
    "adservice.google.com",
    "segment.io",
    "segment.com",
    "mixpanel.com",
    "mxpnl.com",
    "hotjar.com",
    "hotjar.io",
    "ingest.sentry.io",
    "sentry-cdn.com",
    "connect.facebook.net",
    "amplitude.com",
    "heapanalytics.com",
    "heap.io",
    "fullstory.com",
    "clarity.ms",
    "bat.bing.com",
    "ads-twitter.com",
    "analytics.twitter.com",
    "analytics.tiktok.com",
    "nr-data.net",
    "browser-intake-datadoghq.com",
    "browser-intake-datadoghq.eu",
    "optimizely.com",
    "adnxs.com",
    "criteo.com",
    "criteo.net",
    "taboola.com",
    "outbrain.com",
    "scorecardresearch.com",
    "quantserve.com",
    "plausible.io",
    "i.posthog.com",
    "events.launchdarkly.com",
    "newrelic.com",
    "bugsnag.com",
    "sessions.bugsnag.com",
    "cdn.mouseflow.com",
    "snap.licdn.com",
    "px.ads.linkedin.com",
    "pixel.wp.com",
    "stats.wp.com",
    "matomo.cloud",
    "adsrvr.org",
    "rubiconproject.com",
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

/// Whether `host` (lowercase, no port) or `host` + `path` is a tracker.
pub(crate) fn is_tracker(host: &str, path: &str) -> bool {
    let under = |domain: &str| {
        host == domain || host.strip_suffix(domain).is_some_and(|p| p.ends_with('.'))
    };
    if TRACKER_DOMAINS.iter().any(|d| under(d)) {
        return true;
    }
    let first = host.split('.').next().unwrap_or("");
    if host.contains('.') && TRACKER_LABELS.contains(&first) {
        return true;
    }
    TRACKER_PATHS
        .iter()
        .any(|(d, p)| under(d) && (path == p.trim_end_matches('/') || path.starts_with(p)))
}

const STATIC_EXTENSIONS: &[&str] = &[
    "css", "js", "mjs", "cjs", "map", "png", "jpg", "jpeg", "gif", "webp", "avif", "svg", "ico",
    "bmp", "tif", "tiff", "woff", "woff2", "ttf", "otf", "eot", "mp4", "webm", "mp3", "wav", "ogg",
    "m4a", "m4v", "mov", "wasm",
];

/// Whether the last path segment has a static-asset extension.
pub(crate) fn is_static_path(path: &str) -> bool {
    let last = path.rsplit('/').next().unwrap_or("");
    match last.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => STATIC_EXTENSIONS
            .iter()
            .any(|e| e.eq_ignore_ascii_case(ext)),
        _ => false,
    }
}

fn media(content_type: &str) -> String {
    content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

/// Whether a response content type is a static asset (script, style, image, font, media, wasm).
pub(crate) fn is_static_type(content_type: &str) -> bool {
    let m = media(content_type);
    m.starts_with("image/")
        || m.starts_with("font/")
        || m.starts_with("video/")
        || m.starts_with("audio/")
        || m.starts_with("application/font")
        || m.starts_with("application/x-font")
        || matches!(
            m.as_str(),
            "text/css"
                | "text/javascript"
                | "application/javascript"
                | "application/x-javascript"
                | "application/ecmascript"
                | "application/wasm"
                | "application/vnd.ms-fontobject"
        )
}

/// Whether a response content type is an HTML document.
pub(crate) fn is_html_type(content_type: &str) -> bool {
    matches!(
        media(content_type).as_str(),
        "text/html" | "application/xhtml+xml"
    )
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
        assert!(is_static_type("image/svg+xml"));
        assert!(is_static_type("text/javascript; charset=utf-8"));
        assert!(!is_static_type("application/json"));
        assert!(is_html_type("Text/HTML; charset=UTF-8"));
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
