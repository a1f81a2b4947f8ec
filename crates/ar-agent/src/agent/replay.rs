//! The `replay` tool: one captured request of an endpoint, edited by the
//! model (method, path and query, headers, body) and sent again through
//! ar's own proxy, the action the live web view's "Edit and replay" takes.
//! The proxy captures the answer as a flow stamped `replay`.
//!
//! The model only ever saw redacted values, so it cannot name a credential
//! and never gets one: headers it does not mention go out as captured
//! (cookies and keys included), a value it sends back as its redacted
//! rendering means "as captured", and the answer it reads is the status,
//! a few headers and the body, redacted and clipped like `flows_get`'s.

use ar_openapi::Redactor;
use ar_store::{Body, Request};
use serde_json::Value;

use super::flows;
use super::tools::{ToolContext, ToolError, ToolState, string};
use super::workspace::query;

/// Default byte budget of the answer's body.
const BUDGET: usize = 4_000;

pub(crate) async fn replay(
    ctx: &ToolContext,
    _state: &mut ToolState,
    args: &Value,
) -> Result<String, ToolError> {
    let key = string(args, "key")?;
    let lookup = key.clone();
    let captured = query(&*ctx.workspace, move |store| {
        let endpoint = store.resolve_key(&lookup)?;
        endpoint.samples().last().map(|s| s.flow.request.clone())
    })
    .await?
    .ok_or_else(|| {
        ToolError::new(
            "key_not_found",
            format!("no endpoint has the key {key:?}: copy a key from flows_search"),
        )
    })?;
    let request = edited(&captured, args, &ctx.redactor)?;
    let sent = format!("{} {}", request.method, ctx.redactor.url(&request.url));
    let response = ctx.workspace.replay(request).await?;
    let budget = args
        .get("max_bytes")
        .and_then(Value::as_u64)
        .map_or(BUDGET, |b| b.clamp(200, 20_000) as usize);
    let mut out = format!(
        "replayed {sent} through ar's proxy (captured as a replay flow) -> {}\n",
        response.status
    );
    flows::headers(&mut out, &response.headers, &ctx.redactor);
    flows::body(&mut out, "body", &response.body, budget, &ctx.redactor);
    Ok(out)
}

/// The captured request with the model's edits.
fn edited(captured: &Request, args: &Value, redactor: &Redactor) -> Result<Request, ToolError> {
    let invalid = |message: String| ToolError::new("invalid_arguments", message);
    let base = url::Url::parse(&captured.url)
        .map_err(|e| invalid(format!("the captured URL does not parse: {e}")))?;
    let url = match args.get("path").and_then(Value::as_str) {
        Some(path) => {
            let url = base
                .join(path)
                .ok()
                .filter(|_| path.starts_with('/') && !path.starts_with("//"))
                .filter(|u| u.origin() == base.origin())
                .ok_or_else(|| {
                    invalid(format!(
                        "{path:?} is no path on the captured host: give the path and query, starting with `/`"
                    ))
                })?;
            url.to_string()
        }
        None => captured.url.clone(),
    };
    let method = args.get("method").and_then(Value::as_str).map_or_else(
        || captured.method.clone(),
        |m| m.trim().to_ascii_uppercase(),
    );
    let mut overrides: Vec<(String, String)> = match args.get("headers") {
        None => Vec::new(),
        Some(Value::Object(map)) => map
            .iter()
            .map(|(name, value)| match value {
                Value::String(text) => Ok((name.clone(), text.clone())),
                other => Err(invalid(format!(
                    "header {name:?} must be a string, not {other}"
                ))),
            })
            .collect::<Result<_, _>>()?,
        Some(_) => return Err(invalid("headers is an object of name: value".to_owned())),
    };
    let mut request = Request::new(method, url, captured.http_version.clone());
    for header in captured.headers.iter() {
        // An answer the model can read: no compression asked for.
        if header.name.eq_ignore_ascii_case("accept-encoding") {
            continue;
        }
        match overrides
            .iter()
            .position(|(name, _)| name.eq_ignore_ascii_case(&header.name))
        {
            Some(at) if overrides[at].1 != redactor.header_value(&header.name, &header.value) => {}
            Some(at) => {
                overrides.remove(at);
                request
                    .headers
                    .push(header.name.clone(), header.value.clone());
            }
            None => request
                .headers
                .push(header.name.clone(), header.value.clone()),
        }
    }
    for (name, value) in overrides {
        request.headers.push(name, value);
    }
    request.body = match args.get("body").and_then(Value::as_str) {
        Some(text) if Some(text) == shown(&captured.body, redactor).as_deref() => {
            captured.body.clone()
        }
        Some(text) => {
            Body::from_decoded(captured.body.content_type.clone(), text.as_bytes().to_vec())
        }
        None if captured.body.truncated => {
            return Err(invalid(
                "the captured body was cut when it was kept: send the whole `body`".to_owned(),
            ));
        }
        None => captured.body.clone(),
    };
    Ok(request)
}

/// The body as `flows_get` showed it (JSON re-serialized, redacted).
fn shown(body: &Body, redactor: &Redactor) -> Option<String> {
    match serde_json::from_slice::<Value>(&body.bytes) {
        Ok(mut value) => {
            redactor.json(&mut value);
            Some(value.to_string())
        }
        Err(_) => body.text().map(|t| redactor.text(t).into_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ar_store::HttpVersion;
    use serde_json::json;

    fn captured() -> Request {
        let mut request = Request::new(
            "POST",
            "https://api.shop.test/v1/reviews?page=1",
            HttpVersion::Http11,
        );
        request
            .headers
            .push("X-Api-Key", "sk_live_abcdefgh12345678");
        request.headers.push("Accept-Encoding", "gzip, br");
        request.headers.push("Accept", "application/json");
        request.body = Body::from_decoded(
            Some("application/json".into()),
            br#"{"rating":5,"token":"sk_live_abcdefgh12345678"}"#.to_vec(),
        );
        request
    }

    #[test]
    fn edits_apply_and_what_the_model_saw_redacted_goes_out_as_captured() {
        let redactor = Redactor::new();
        let original = captured();
        let shown_key = redactor.header_value("X-Api-Key", "sk_live_abcdefgh12345678");
        assert_ne!(shown_key, "sk_live_abcdefgh12345678");
        let request = edited(
            &original,
            &json!({
                "path": "/v1/reviews?page=2",
                "method": "get",
                "headers": {"x-api-key": shown_key, "Accept": "text/plain"},
                "body": shown(&original.body, &redactor).unwrap(),
            }),
            &redactor,
        )
        .unwrap();
        assert_eq!(request.method, "GET");
        assert_eq!(request.url, "https://api.shop.test/v1/reviews?page=2");
        assert_eq!(
            request.headers.get("x-api-key"),
            Some("sk_live_abcdefgh12345678")
        );
        assert_eq!(request.headers.get("accept"), Some("text/plain"));
        assert_eq!(request.headers.get("accept-encoding"), None);
        assert_eq!(request.body.bytes, original.body.bytes);

        let typed = edited(&original, &json!({"body": "{\"rating\":1}"}), &redactor).unwrap();
        assert_eq!(typed.body.bytes, b"{\"rating\":1}");
        assert_eq!(typed.url, original.url);
    }

    #[test]
    fn a_path_cannot_leave_the_captured_host() {
        let redactor = Redactor::new();
        for path in ["//evil.test/x", "https://evil.test/x", "v1/reviews"] {
            let error = edited(&captured(), &json!({"path": path}), &redactor).unwrap_err();
            assert_eq!(error.code, "invalid_arguments", "{path}");
        }
    }
}
