//! Writes the benchmark inputs (the same bytes `benches/infer.rs` uses) into a directory, for
//! side-by-side runs with other tools (`benches/schema/compare_genson.sh`), then times
//! `ar-schema` on each file, best of `--runs` (default 3), on this one thread.
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
    println!("file\tbytes\tar_schema_seconds\tar_schema_mb_per_s");
    for (name, bytes) in support::all(true) {
        let path = dir.join(name);
        if std::fs::read(&path).ok().as_deref() != Some(&bytes[..]) {
            std::fs::write(&path, &bytes)?;
        }
        let data = std::fs::read(&path)?;
        let mut best = f64::INFINITY;
        for _ in 0..runs {
            let start = Instant::now();
            let mut b = ar_schema::SchemaBuilder::new();
            b.add_json_stream(&data)?;
            let schema = b.finish();
            std::hint::black_box(schema.to_json_schema());
            best = best.min(start.elapsed().as_secs_f64());
        }
        println!(
            "{name}\t{}\t{best:.6}\t{:.1}",
            data.len(),
            data.len() as f64 / best / 1e6
        );
    }
    Ok(())
}
