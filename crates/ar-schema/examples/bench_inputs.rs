//! Writes the benchmark inputs (the same bytes `benches/infer.rs` uses) into a directory, for
//! side-by-side runs with other tools (`benches/schema/compare_genson.sh`), then times
//! `ar-schema` (bytes → schema, rendered) and `serde_json` (bytes → `Value`s) on each file,
//! best of `--runs` (default 3), on this one thread. The two are timed alternately, run after
//! run, so that load from other processes on a shared machine hits both alike.
//!
//! `cargo run --release -p ar-schema --example bench_inputs -- DIR [--runs N]`

#[path = "../benches/support/mod.rs"]
mod support;

use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let dir = std::path::PathBuf::from(args.next().ok_or("usage: bench_inputs DIR [--runs N]")?);
    let runs: usize = match (args.next().as_deref(), args.next()) {
        (Some("--runs"), Some(n)) => n.parse()?,
        _ => 3,
    };
    std::fs::create_dir_all(&dir)?;
    println!("file\tbytes\tar_schema_seconds\tar_schema_mb_per_s\tserde_json_value_mb_per_s");
    for (name, bytes) in support::all(true) {
        let path = dir.join(name);
        if std::fs::read(&path).ok().as_deref() != Some(&bytes[..]) {
            std::fs::write(&path, &bytes)?;
        }
        let data = std::fs::read(&path)?;
        let (mut best, mut best_serde) = (f64::INFINITY, f64::INFINITY);
        for _ in 0..runs {
            let start = Instant::now();
            let mut b = ar_schema::SchemaBuilder::new();
            b.add_json_stream(&data)?;
            let schema = b.finish();
            let out = std::hint::black_box(schema.to_json_schema());
            best = best.min(start.elapsed().as_secs_f64());
            drop((out, schema));

            let start = Instant::now();
            let values = serde_json::Deserializer::from_slice(&data)
                .into_iter::<serde_json::Value>()
                .collect::<Result<Vec<_>, _>>()?;
            let values = std::hint::black_box(values);
            // Dropping the values is not parsing: stop the clock first (as divan does).
            best_serde = best_serde.min(start.elapsed().as_secs_f64());
            drop(values);
        }
        let mb = data.len() as f64 / 1e6;
        println!(
            "{name}\t{}\t{best:.6}\t{:.1}\t{:.1}",
            data.len(),
            mb / best,
            mb / best_serde
        );
    }
    Ok(())
}
