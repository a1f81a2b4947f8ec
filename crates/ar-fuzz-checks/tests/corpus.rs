//! Replays every committed fuzz input (`fuzz/corpus/<target>/*`) through its
//! target's check on stable, so what the fuzzer found stays tested.

use std::path::Path;

#[test]
fn every_committed_fuzz_input_passes_its_check() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus");
    for (target, check) in ar_fuzz_checks::TARGETS {
        let dir = root.join(target);
        let mut inputs: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|entry| entry.expect("a corpus entry").path())
            .collect();
        inputs.sort();
        assert!(!inputs.is_empty(), "no corpus for {target}");
        for input in &inputs {
            let data = std::fs::read(input).expect("a corpus file");
            eprintln!("{target}: {}", input.display());
            check(&data);
        }
    }
}
