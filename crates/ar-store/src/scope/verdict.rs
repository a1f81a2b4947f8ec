//! The host-only half of a scope decision, and a bounded per-host cache of it.
//!
//! Most of a decision depends on the host alone (deny and allow lists, the
//! tracker list, the target's registrable domain), and hosts repeat on
//! every flow; only the path and content type checks are per flow. The
//! store keeps a [`HostCache`] so the host half is computed once per host.

use std::collections::HashMap;

use super::{InReason, OutReason, Scope, ScopeDecision, domain, registrable_domain, rules};

/// What a [`Scope`] decided about one host, before looking at the path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct HostVerdict {
    /// No host at all.
    empty: bool,
    /// On the user's deny list.
    denied: bool,
    /// On the user's allow list (trackers then stay in).
    allowed: bool,
    /// On the list of tracker services, whatever the path.
    tracker: bool,
    /// Named like a telemetry sink: a tracker unless its traffic is an API's.
    telemetry_name: bool,
    /// Named by the user (the target's own host, `extra_hosts`, `allow_hosts`):
    /// never judged a tracker.
    named_by_user: bool,
    /// Tracker path-list entries the host falls under.
    tracker_paths: u8,
    /// Why the host is in scope; `None`: out of scope.
    reason: Option<InReason>,
}

/// Hosts kept in a [`HostCache`]; when full it starts over (memory stays bounded).
const MAX_HOSTS: usize = 1024;

/// What a response content type says about scope.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TypeFlags {
    is_static: bool,
    is_html: bool,
    /// A JSON document (`application/json`, `+json`): an API's answer.
    pub(crate) is_json: bool,
}

impl TypeFlags {
    pub(crate) fn of(content_type: &str) -> Self {
        Self {
            is_static: rules::is_static_type(content_type),
            is_html: rules::is_html_type(content_type),
            is_json: rules::is_json_type(content_type),
        }
    }
}

/// Host verdicts by host as written in the flow (port and case included),
/// and the flags of the last response content type (they repeat too).
#[derive(Debug, Default)]
pub(crate) struct HostCache {
    map: HashMap<Box<str>, HostVerdict, foldhash::fast::FixedState>,
    last_type: Option<(Box<str>, TypeFlags)>,
}

impl HostCache {
    /// The verdict of `scope` on `host`, computed once per host.
    pub(crate) fn verdict(&mut self, scope: &Scope, host: &str) -> HostVerdict {
        if let Some(v) = self.map.get(host) {
            return *v;
        }
        let verdict = scope.host_verdict(host);
        if self.map.len() >= MAX_HOSTS {
            self.map.clear();
        }
        self.map.insert(host.into(), verdict);
        verdict
    }

    /// The flags of `content_type`, computed again only when it changes.
    pub(crate) fn type_flags(&mut self, content_type: &str) -> TypeFlags {
        match &self.last_type {
            Some((last, flags)) if **last == *content_type => *flags,
            _ => {
                let flags = TypeFlags::of(content_type);
                self.last_type = Some((content_type.into(), flags));
                flags
            }
        }
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        self.map.keys().map(|k| k.len() + 48).sum::<usize>()
            + self.last_type.as_ref().map_or(0, |(t, _)| t.len())
    }
}

impl Scope {
    /// The host half of a decision (`host` may carry a port and capitals).
    pub(crate) fn host_verdict(&self, host: &str) -> HostVerdict {
        let host = domain::strip_port(host).trim_end_matches('.');
        // Borrowed when already lowercase (the usual case).
        let lower: std::borrow::Cow<'_, str> = if host.bytes().any(|b| b.is_ascii_uppercase()) {
            std::borrow::Cow::Owned(host.to_ascii_lowercase())
        } else {
            std::borrow::Cow::Borrowed(host)
        };
        let host: &str = &lower;
        let allowed = self.allow.iter().any(|p| p.matches(host));
        let extra = self.extra.iter().any(|p| p.matches(host));
        let reason = if allowed {
            Some(InReason::AllowedHost)
        } else if extra {
            Some(InReason::ExtraHost)
        } else {
            match &self.site {
                None => Some(InReason::AnyHost),
                Some(site) if registrable_domain(host) == *site => Some(InReason::TargetSite),
                Some(_) => None,
            }
        };
        HostVerdict {
            empty: host.is_empty(),
            denied: self.deny.iter().any(|p| p.matches(host)),
            allowed,
            tracker: rules::is_tracker_domain(host),
            telemetry_name: rules::named_like_telemetry(host),
            named_by_user: allowed || extra || self.target_host.as_deref() == Some(host),
            tracker_paths: rules::tracker_path_domains(host),
            reason,
        }
    }

    /// The whole decision from a host verdict, the path, the response content
    /// type, whether the method only reads (only a read can be a static asset),
    /// and whether the flow itself shows an API's traffic ([`super::api_evidence`]).
    pub(crate) fn decide_verdict(
        &self,
        host: HostVerdict,
        path: &str,
        response_type: Option<TypeFlags>,
        reads: bool,
        api_evidence: bool,
    ) -> ScopeDecision {
        let path = if path.is_empty() { "/" } else { path };
        if host.empty {
            return ScopeDecision::Out(OutReason::OutOfScopeHost);
        }
        if host.denied {
            return ScopeDecision::Out(OutReason::UserDeniedHost);
        }
        if self.deny_paths.as_ref().is_some_and(|g| g.is_match(path)) {
            return ScopeDecision::Out(OutReason::UserDeniedPath);
        }
        // A listed service is a tracker by what it is; a host only named
        // like one is a tracker while its traffic looks like telemetry.
        let named_tracker = host.telemetry_name && !api_evidence;
        if !host.named_by_user
            && (host.tracker || named_tracker || rules::is_tracker_path(host.tracker_paths, path))
        {
            return ScopeDecision::Out(OutReason::Tracker);
        }
        let Some(reason) = host.reason else {
            return ScopeDecision::Out(OutReason::OutOfScopeHost);
        };
        if self.allow_paths.as_ref().is_some_and(|g| !g.is_match(path)) {
            return ScopeDecision::Out(OutReason::NotAllowedPath);
        }
        if !self.keep_static
            && reads
            && (rules::is_static_path(path) || response_type.is_some_and(|t| t.is_static))
        {
            return ScopeDecision::Out(OutReason::StaticAsset);
        }
        if !self.keep_html && response_type.is_some_and(|t| t.is_html) {
            return ScopeDecision::Out(OutReason::HtmlPage);
        }
        ScopeDecision::In(reason)
    }
}

#[cfg(test)]
mod tests {
    use super::super::ScopeConfig;
    use super::*;

    #[test]
    fn cached_verdicts_decide_like_fresh_ones() {
        let config = ScopeConfig {
            extra_hosts: vec!["*.payments.test".into()],
            deny_hosts: vec!["legacy.shop.test".into()],
            ..ScopeConfig::for_target("https://shop.test/")
        };
        let scope = Scope::new(config).unwrap();
        let mut cache = HostCache::default();
        for _ in 0..2 {
            for (host, path) in [
                ("api.shop.test", "/v1/x"),
                ("API.Shop.Test:8443", "/v1/x"),
                ("legacy.shop.test", "/x"),
                ("www.facebook.com", "/tr"),
                ("www.facebook.com", "/api"),
                ("metrics.shop.test", "/q"),
                ("eu.payments.test", "/pay"),
                ("other.test", "/"),
                ("", "/"),
            ] {
                for ct in [
                    None,
                    Some("application/json"),
                    Some("text/html"),
                    Some("image/png"),
                ] {
                    let flags = ct.map(|ct| cache.type_flags(ct));
                    let cached =
                        scope.decide_verdict(cache.verdict(&scope, host), path, flags, true, false);
                    assert_eq!(
                        cached,
                        scope.decide_parts(host, path, ct),
                        "{host}{path} {ct:?}"
                    );
                }
            }
        }
        assert_eq!(cache.map.len(), 8);
    }
}
