//! One value of a parameter made an endpoint of its own: `/a/{x}` with
//! `b` split off becomes `/a/b` beside `/a/{x}` (both kept as user
//! templates, the literal first, so the parameter stays one whatever the
//! learnt rules make of the values left).

use ar_store::store::Endpoint;

use super::{join, parts, segment_of};

/// The literal sibling's pattern, then the parameter's.
pub(super) fn patterns(endpoint: &Endpoint, at: usize, value: &str) -> Result<Vec<String>, String> {
    let template = endpoint.template();
    let Some(param) = template.param_at(at) else {
        return Err(format!("segment {at} of {template} is no parameter"));
    };
    if param.rest {
        return Err(format!(
            "`{{{}}}` takes the rest of the path: make it a one-segment parameter first",
            param.name
        ));
    }
    let value = value.trim();
    if value.is_empty() || value.contains(['/', '{', '}']) {
        return Err(format!("`{value}` is no single segment"));
    }
    let mut has_it = false;
    let mut has_others = false;
    for path in endpoint.concrete_paths().keys() {
        match segment_of(path, at) {
            Some(seen) if seen == value => has_it = true,
            Some(_) => has_others = true,
            None => {}
        }
    }
    if !has_it {
        return Err(format!("no flow of {template} has `{value}` there"));
    }
    if !has_others {
        return Err(format!(
            "every flow of {template} has `{value}` there: make the segment a literal instead"
        ));
    }
    let kept = parts(template);
    let mut literal = kept.clone();
    literal[at] = value.to_owned();
    Ok(vec![
        join(endpoint.host(), &literal),
        join(endpoint.host(), &kept),
    ])
}

#[cfg(test)]
mod tests {
    use crate::correction::tests::{key_of, store};
    use crate::correction::{Correction, patterns};

    #[test]
    fn a_value_of_a_parameter_becomes_a_literal_sibling() {
        let store = store(&["/v1/users/41", "/v1/users/42", "/v1/users/43"]);
        let split = |segment, value: &str| {
            patterns(
                &store,
                &Correction::Split {
                    key: key_of(&store, "/v1/users/{userId}"),
                    segment,
                    value: value.to_owned(),
                },
            )
        };
        assert_eq!(
            split(2, "42").unwrap(),
            [
                "api.shop.test/v1/users/42",
                "api.shop.test/v1/users/{userId}"
            ]
        );
        assert!(split(1, "users").unwrap_err().contains("no parameter"));
        assert!(split(2, "44").unwrap_err().contains("no flow"));
        assert!(split(2, "4/2").unwrap_err().contains("no single segment"));
    }
}
