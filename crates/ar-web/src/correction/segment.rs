//! One segment of an endpoint's template made a literal, a parameter, or a
//! parameter for the rest of the path.

use ar_store::store::Endpoint;

use super::{join, name_after, parts, segment_of};

/// Concrete values turned into literals at most, per correction.
const MAX_LITERALS: usize = 50;

/// What one segment should be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SegmentAs {
    /// Its own value in each path: one endpoint per value.
    Literal,
    /// One parameter for whatever value it has.
    Parameter,
    /// One parameter for it and everything after it.
    Rest,
}

impl SegmentAs {
    /// `literal`, `parameter`, `rest`.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "literal" => Some(Self::Literal),
            "parameter" | "param" => Some(Self::Parameter),
            "rest" => Some(Self::Rest),
            _ => None,
        }
    }
}

/// The patterns that make segment `at` of `endpoint` what `make` says (a
/// literal becomes one pattern per value the endpoint saw).
pub(super) fn patterns(
    endpoint: &Endpoint,
    at: usize,
    make: SegmentAs,
) -> Result<Vec<String>, String> {
    let template = endpoint.template();
    let segments = parts(template);
    let Some(current) = segments.get(at) else {
        return Err(format!("{template} has no segment {at}"));
    };
    let is_param = current.starts_with('{');
    let texts: Vec<String> = match make {
        SegmentAs::Parameter if is_param => {
            return Err(format!("`{current}` is a parameter already"));
        }
        SegmentAs::Literal if !is_param => {
            return Err(format!("`{current}` is a literal already"));
        }
        SegmentAs::Parameter => {
            let mut changed = segments.clone();
            changed[at] = format!("{{{}}}", name_after(&segments[..at]));
            vec![join(endpoint.host(), &changed)]
        }
        SegmentAs::Rest => {
            let mut changed = segments[..at].to_vec();
            changed.push("{path*}".to_owned());
            vec![join(endpoint.host(), &changed)]
        }
        SegmentAs::Literal => {
            let mut values: Vec<&str> = endpoint
                .concrete_paths()
                .keys()
                .filter_map(|path| segment_of(path, at))
                .collect();
            values.sort_unstable();
            values.dedup();
            values.truncate(MAX_LITERALS);
            values
                .into_iter()
                .map(|value| {
                    let mut changed = segments.clone();
                    value.clone_into(&mut changed[at]);
                    join(endpoint.host(), &changed)
                })
                .collect()
        }
    };
    if texts.is_empty() {
        return Err(format!("no path of {template} has a segment {at}"));
    }
    Ok(texts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::correction::tests::store;
    use crate::correction::{Correction, patterns as checked};

    #[test]
    fn each_kind_of_correction_becomes_checked_host_patterns() {
        let store = store(&["/v1/users/41", "/v1/users/42", "/v1/users/43"]);
        let endpoint = &store.endpoints()[0];
        assert_eq!(endpoint.template().to_string(), "/v1/users/{userId}");
        let fix = |segment, make| {
            checked(
                &store,
                &Correction::Segment {
                    key: endpoint.key().to_string(),
                    segment,
                    make,
                },
            )
        };
        assert_eq!(
            fix(2, SegmentAs::Literal).unwrap(),
            [
                "api.shop.test/v1/users/41",
                "api.shop.test/v1/users/42",
                "api.shop.test/v1/users/43"
            ]
        );
        assert_eq!(
            fix(1, SegmentAs::Parameter).unwrap(),
            ["api.shop.test/v1/{param}/{userId}"]
        );
        assert_eq!(
            fix(1, SegmentAs::Rest).unwrap(),
            ["api.shop.test/v1/{path*}"]
        );
        assert!(
            fix(2, SegmentAs::Parameter)
                .unwrap_err()
                .contains("already")
        );
        assert!(fix(0, SegmentAs::Literal).unwrap_err().contains("already"));
        assert!(
            fix(7, SegmentAs::Rest)
                .unwrap_err()
                .contains("no segment 7")
        );
    }

    #[test]
    fn a_segment_with_text_around_its_parameter_is_kept_as_written() {
        let store = store(&["/t/27176.json", "/t/35860.json", "/t/40452.json"]);
        let endpoint = &store.endpoints()[0];
        assert_eq!(endpoint.template().to_string(), "/t/{tId}.json");
        let fixed = checked(
            &store,
            &Correction::Segment {
                key: endpoint.key().to_string(),
                segment: 0,
                make: SegmentAs::Parameter,
            },
        );
        assert_eq!(fixed.unwrap(), ["api.shop.test/{param}/{tId}.json"]);
    }
}
