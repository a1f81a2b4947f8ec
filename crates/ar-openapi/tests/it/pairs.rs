//! A segment that holds two numbers (`/stops/location/-37.81,144.96`) is
//! two declared path parameters, each with its own examples.

use ar_openapi::Options;
use ar_store::Flow;
use ar_store::scope::Scope;
use ar_store::store::{EndpointStore, StoreConfig};

use crate::document_flows;

#[test]
fn a_pair_of_numbers_in_a_segment_is_two_declared_parameters() {
    let store = EndpointStore::new(Scope::everything(), StoreConfig::default());
    let points = ["-37.8136,144.9631", "51.5072,-0.1276", "48.8566,2.3522"];
    let flows: Vec<Flow> = (points.iter().enumerate())
        .map(|(i, point)| {
            crate::json_get(
                i as u64,
                &format!("https://transit.test/v3/stops/location/{point}"),
                r#"{"stops":[{"name":"Central","id":7}]}"#,
            )
        })
        .collect();
    let (_, docs) = document_flows(store, &flows, &Options::default());
    let spec: serde_json::Value = serde_json::from_str(&docs.json().unwrap()).unwrap();
    let paths: Vec<&String> = spec["paths"].as_object().unwrap().keys().collect();
    assert_eq!(paths, ["/stops/location/{latitude},{longitude}"]);
    let params = spec["paths"]["/stops/location/{latitude},{longitude}"]["get"]["parameters"]
        .as_array()
        .unwrap();
    let declared: Vec<(&str, &str)> = params
        .iter()
        .map(|p| (p["name"].as_str().unwrap(), p["in"].as_str().unwrap()))
        .collect();
    assert_eq!(declared, [("latitude", "path"), ("longitude", "path")]);
    // Each example is its own half of one point seen.
    let example = format!("{},{}", params[0]["example"], params[1]["example"]);
    assert!(points.contains(&example.as_str()), "{example}");
    assert!(
        params.iter().all(|p| p["schema"]["type"] == "number"),
        "{params:?}"
    );
    assert!(docs.markdown.contains("{latitude},{longitude}"));
}
