//! Enrichment against the mock LLM: exactly one call per distinct endpoint
//! (never for more flows of it, never after a merge), names cached and
//! reused, failures retried, and no secret in what the model is shown.

use std::sync::{Arc, Mutex};

use ar_agent::enrich::{Enricher, EnrichmentCache, Planner};
use ar_agent::llm::ProviderKind;
use ar_mock_llm::{MockLlm, Reply};
use ar_openapi::Redactor;
use ar_store::scope::Scope;
use ar_store::store::{EndpointStore, StoreConfig};
use ar_store::{Body, Client, Flow, FlowId, HttpVersion, Request, Response, Timestamp};

use crate::agent_support::{BEARER, BODY_JWT, COOKIE_SECRET, SECRETS, URL_TOKEN};
use crate::llm_support::provider;

fn flow(id: u64, method: &str, url: &str, json: &str) -> Flow {
    let mut request = Request::new(method, url, HttpVersion::Http11);
    request
        .headers
        .push("Authorization", format!("Bearer {BEARER}"));
    request
        .headers
        .push("Cookie", format!("sid={COOKIE_SECRET}"));
    let mut response = Response::new(200, HttpVersion::Http11);
    response.body = Body::from_decoded(Some("application/json".into()), json.as_bytes().to_vec());
    Flow::new(
        FlowId(id),
        Timestamp::from_unix_micros(id as i64),
        Client::Agent,
        request,
    )
    .with_response(response)
}

/// Names every endpoint after its path's last literal word, counting calls per key.
fn namer(mock: &MockLlm, calls: Arc<Mutex<Vec<String>>>) {
    mock.respond_with(move |request| {
        let text = request.last_user_text();
        let key = text.lines().next()?.trim_start_matches("endpoint: ").to_owned();
        calls.lock().unwrap().push(key.clone());
        if key.contains("/flaky") && calls.lock().unwrap().iter().filter(|k| k.contains("/flaky")).count() == 1 {
            return Some(Reply::text("sorry, no idea"));
        }
        let word = key.rsplit('/').find(|s| !s.starts_with('{')).unwrap_or("thing").to_owned();
        Some(Reply::text(format!(
            r#"{{"operationId":"get{}","summary":"Get {word}","description":"Returns {word}.","tag":"{word}"}}"#,
            word[..1].to_uppercase() + &word[1..]
        )))
    });
}

async fn run_jobs(
    planner: &mut Planner,
    enricher: &Enricher,
    store: &EndpointStore,
    cache: &mut EnrichmentCache,
    retry: bool,
) -> usize {
    let jobs = planner.wanted(store, cache, retry);
    for job in &jobs {
        let name = enricher
            .name(&job.key, &job.preview)
            .await
            .ok()
            .map(|(a, _)| a);
        planner.finished(job, name, cache);
    }
    jobs.len()
}

#[tokio::test]
async fn one_call_per_endpoint_never_for_repeats_or_merges() {
    for kind in [ProviderKind::Anthropic, ProviderKind::OpenAi] {
        let mock = MockLlm::start().await;
        let calls = Arc::new(Mutex::new(Vec::new()));
        namer(&mock, Arc::clone(&calls));
        let enricher = Enricher::new(provider(kind, &mock));
        let mut store = EndpointStore::new(Scope::everything(), StoreConfig::default());
        let mut planner = Planner::new(Redactor::new());
        let mut cache = EnrichmentCache::default();

        store.ingest(&flow(
            1,
            "GET",
            &format!("https://api.shop.test/users/1?token={URL_TOKEN}"),
            &format!(r#"{{"id":1,"jwt":"{BODY_JWT}"}}"#),
        ));
        store.ingest(&flow(
            2,
            "GET",
            "https://api.shop.test/cart",
            r#"{"items":[]}"#,
        ));
        assert_eq!(
            run_jobs(&mut planner, &enricher, &store, &mut cache, false).await,
            2
        );
        // More flows of the same endpoints: no call.
        for id in 3..10 {
            store.ingest(&flow(
                id,
                "GET",
                &format!("https://api.shop.test/users/{id}"),
                r#"{"id":3}"#,
            ));
            store.ingest(&flow(
                id + 100,
                "GET",
                "https://api.shop.test/cart",
                r#"{"items":[1]}"#,
            ));
        }
        assert_eq!(
            run_jobs(&mut planner, &enricher, &store, &mut cache, true).await,
            0
        );
        // Slugs: two endpoints until the third value widens the template into one.
        store.ingest(&flow(
            20,
            "GET",
            "https://api.shop.test/blog/hello-world",
            "{}",
        ));
        assert_eq!(
            run_jobs(&mut planner, &enricher, &store, &mut cache, false).await,
            1
        );
        store.ingest(&flow(
            21,
            "GET",
            "https://api.shop.test/blog/second-post",
            "{}",
        ));
        store.ingest(&flow(
            22,
            "GET",
            "https://api.shop.test/blog/third-post",
            "{}",
        ));
        store.ingest(&flow(
            23,
            "GET",
            "https://api.shop.test/blog/fourth-post",
            "{}",
        ));
        let blog: Vec<String> = store
            .endpoints()
            .iter()
            .map(|e| e.key().to_string())
            .filter(|k| k.contains("/blog"))
            .collect();
        run_jobs(&mut planner, &enricher, &store, &mut cache, true).await;
        let called = calls.lock().unwrap().clone();
        let distinct: std::collections::BTreeSet<&String> = called.iter().collect();
        assert_eq!(
            called.len(),
            distinct.len(),
            "a key was named twice: {called:?}"
        );
        assert_eq!(
            called.iter().filter(|k| k.contains("/users")).count(),
            1,
            "{called:?}"
        );
        assert_eq!(
            called.iter().filter(|k| k.contains("/cart")).count(),
            1,
            "{called:?}"
        );
        // Every endpoint that exists has a name under its current key.
        for endpoint in store.endpoints() {
            assert!(
                cache.get(endpoint.key().as_str()).is_some(),
                "{} unnamed ({blog:?}, {called:?})",
                endpoint.key()
            );
        }
        assert_eq!(
            cache
                .get("GET api.shop.test/users/{userId}")
                .unwrap()
                .operation_id
                .as_deref(),
            Some("getUsers")
        );
        for request in mock.requests() {
            for secret in SECRETS {
                assert!(
                    !request.body.contains(secret),
                    "leaked {secret}: {}",
                    request.body
                );
            }
        }
        assert!(
            mock.requests()
                .iter()
                .any(|r| r.body.contains("$.id integer")),
            "the shape is sent"
        );
    }
}

#[tokio::test]
async fn failures_fall_back_and_are_retried_later_and_the_cache_survives_a_resume() {
    let mock = MockLlm::start().await;
    let calls = Arc::new(Mutex::new(Vec::new()));
    namer(&mock, Arc::clone(&calls));
    let enricher = Enricher::new(provider(ProviderKind::Anthropic, &mock));
    let mut store = EndpointStore::new(Scope::everything(), StoreConfig::default());
    let mut planner = Planner::new(Redactor::new());
    let mut cache = EnrichmentCache::default();
    store.ingest(&flow(1, "GET", "https://api.shop.test/flaky", "{}"));
    assert_eq!(
        run_jobs(&mut planner, &enricher, &store, &mut cache, false).await,
        1
    );
    assert!(cache.get("GET api.shop.test/flaky").is_none());
    assert!(cache.failed().contains("GET api.shop.test/flaky"));
    // Not retried until the caller asks for retries.
    assert_eq!(
        run_jobs(&mut planner, &enricher, &store, &mut cache, false).await,
        0
    );
    assert_eq!(
        run_jobs(&mut planner, &enricher, &store, &mut cache, true).await,
        1
    );
    assert_eq!(
        cache
            .get("GET api.shop.test/flaky")
            .unwrap()
            .summary
            .as_deref(),
        Some("Get flaky")
    );
    assert!(cache.failed().is_empty());

    // Resume: a new planner with the saved cache makes no call for known keys.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join(ar_agent::enrich::ENRICHMENT_FILE),
        cache.to_json(),
    )
    .unwrap();
    let mut resumed = EnrichmentCache::load(dir.path()).unwrap();
    let mut planner = Planner::new(Redactor::new());
    let before = mock.request_count();
    assert_eq!(
        run_jobs(&mut planner, &enricher, &store, &mut resumed, true).await,
        0
    );
    assert_eq!(mock.request_count(), before);
}
