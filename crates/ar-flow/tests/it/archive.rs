//! The archive rebuilds every flow exactly (property test), and survives crashes.

use ar_flow::archive::{ArchiveWarning, ArchiveWriter, MemoryBodyStore, read_archive};
use ar_flow::testing::flow;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn archive_round_trips_every_flow(flows in prop::collection::vec(flow(), 1..6), threshold in prop_oneof![Just(0usize), Just(256), Just(1 << 20)]) {
        let mut bodies = MemoryBodyStore::default();
        let mut writer = ArchiveWriter::new(Vec::new()).with_spill_threshold(threshold);
        for f in &flows {
            writer.append(f, &mut bodies).unwrap();
        }
        let bytes = writer.into_inner();
        prop_assert_eq!(bytes.iter().filter(|b| **b == b'\n').count(), flows.len(), "one line per flow");
        let contents = read_archive(&bytes[..], &bodies).unwrap();
        prop_assert!(contents.warnings.is_empty(), "{:?}", contents.warnings);
        prop_assert_eq!(contents.flows, flows);
    }

    #[test]
    fn a_torn_tail_loses_only_the_last_flow(flows in prop::collection::vec(flow(), 2..5), cut in 1usize..200) {
        let mut bodies = MemoryBodyStore::default();
        let mut writer = ArchiveWriter::new(Vec::new());
        for f in &flows {
            writer.append(f, &mut bodies).unwrap();
        }
        let mut bytes = writer.into_inner();
        let last_start = bytes[..bytes.len() - 1].iter().rposition(|b| *b == b'\n').unwrap() + 1;
        let last_len = bytes.len() - last_start;
        bytes.truncate(bytes.len() - cut.min(last_len - 1).max(2));
        let contents = read_archive(&bytes[..], &bodies).unwrap();
        prop_assert_eq!(&contents.flows[..], &flows[..flows.len() - 1]);
        let torn = matches!(contents.warnings[..], [ArchiveWarning::TornLastLine { .. }]);
        prop_assert!(torn, "{:?}", contents.warnings);
    }
}

#[test]
fn archive_lines_are_har_entries_readable_by_the_har_importer() {
    let flow = ar_flow::testing::json_flow(
        9,
        "GET",
        "https://shop.test/api/x?y=1",
        200,
        "{\"ok\":true}",
    );
    let mut writer = ArchiveWriter::new(Vec::new());
    writer
        .append(&flow, &mut MemoryBodyStore::default())
        .unwrap();
    let line = String::from_utf8(writer.into_inner()).unwrap();
    let har = format!(
        "{{\"log\":{{\"version\":\"1.2\",\"entries\":[{}]}}}}",
        line.trim()
    );
    let imported =
        ar_flow::har::import_har(har.as_bytes(), &ar_flow::har::ImportOptions::strict()).unwrap();
    assert_eq!(imported.flows[0].request.url, flow.request.url);
    assert_eq!(
        imported.flows[0].response.as_ref().unwrap().body.bytes,
        b"{\"ok\":true}"
    );
}
