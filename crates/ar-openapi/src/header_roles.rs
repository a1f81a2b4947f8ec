//! What a header's name says about it, worked out once per distinct name.
//!
//! Every flow repeats the same few dozen header names, and lowercasing each
//! one and matching it against the lists of boring headers and the rules for
//! secret names was most of the documenter's work per header. The verdict
//! depends only on the name (and the redactor's rules, fixed for a
//! documenter), so it is kept per name as sent.

use std::collections::HashMap;

use foldhash::fast::FixedState;

use crate::fold::with_lowercase;
use crate::params::{is_boring_header, is_boring_response_header};
use crate::redact::Redactor;
use crate::security::HeaderCredential;

/// At most this many names are remembered; further names (a client that
/// makes up header names) are worked out every time, so memory stays bounded.
const MAX_NAMES: usize = 1024;

/// What a header name means to the documenter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct HeaderRole {
    /// The credential a request header of this name carries.
    pub(crate) credential: HeaderCredential,
    /// Documented as a request header parameter: not boring, not a secret.
    pub(crate) request_param: bool,
    /// Documented as a response header: not boring, not a secret.
    pub(crate) response_param: bool,
}

impl HeaderRole {
    /// Works out the role of the header `name`, in any case.
    pub(crate) fn of(name: &str, redactor: &Redactor) -> Self {
        with_lowercase(name, |lower| {
            let secret = redactor.is_secret_lowercase_header(lower);
            Self {
                credential: HeaderCredential::of(lower, secret),
                request_param: !secret && !is_boring_header(lower),
                response_param: !secret && !is_boring_response_header(lower),
            }
        })
    }
}

/// The roles of the header names seen so far.
#[derive(Debug, Clone, Default)]
pub(crate) struct HeaderRoles {
    known: HashMap<Box<str>, HeaderRole, FixedState>,
}

impl HeaderRoles {
    /// The role of the header `name` (as sent), remembered for next time.
    pub(crate) fn of(&mut self, name: &str, redactor: &Redactor) -> HeaderRole {
        if let Some(role) = self.known.get(name) {
            return *role;
        }
        let role = HeaderRole::of(name, redactor);
        if self.known.len() < MAX_NAMES {
            self.known.insert(name.into(), role);
        }
        role
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_follow_the_name_in_any_case() {
        let redactor = Redactor::new();
        let mut roles = HeaderRoles::default();
        for (name, credential, request, response) in [
            (
                "Authorization",
                HeaderCredential::Authorization,
                false,
                false,
            ),
            (
                "AUTHORIZATION",
                HeaderCredential::Authorization,
                false,
                false,
            ),
            ("Cookie", HeaderCredential::Cookie, false, false),
            ("X-Api-Key", HeaderCredential::Key, false, false),
            ("x-auth-token", HeaderCredential::Key, false, false),
            ("X-CSRF-Token", HeaderCredential::None, false, false),
            ("Set-Cookie", HeaderCredential::None, false, false),
            ("Host", HeaderCredential::None, false, true),
            ("Content-Type", HeaderCredential::None, false, false),
            ("X-Request-Id", HeaderCredential::None, true, true),
            ("Location", HeaderCredential::None, true, true),
            ("Date", HeaderCredential::None, true, false),
        ] {
            let expected = HeaderRole {
                credential,
                request_param: request,
                response_param: response,
            };
            // Worked out, then remembered: the same both times.
            assert_eq!(roles.of(name, &redactor), expected, "{name}");
            assert_eq!(roles.of(name, &redactor), expected, "{name} again");
        }
    }

    #[test]
    fn the_memory_is_bounded() {
        let redactor = Redactor::new();
        let mut roles = HeaderRoles::default();
        for n in 0..MAX_NAMES + 10 {
            let name = format!("X-Made-Up-{n}");
            assert!(roles.of(&name, &redactor).request_param);
        }
        assert_eq!(roles.known.len(), MAX_NAMES);
        assert!(roles.of("X-Made-Up-1030", &redactor).request_param);
    }
}
