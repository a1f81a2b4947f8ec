//! Writes the benchmark inputs (the same bytes `benches/infer.rs` uses) into a directory, for
//! side-by-side runs with other tools (`benches/schema/compare_genson.sh`), then times
//! `ar-schema` (bytes → schema, rendered) and `serde_json` (bytes → `Value`s) on each file,
//! best of `--runs` (default 3) and of as many more runs as fit in `--min-seconds` (default 1)
//! per file, on this one thread. The two are timed alternately, run after run, so that load from
//! other processes on a shared machine hits both alike; the extra runs give sub-millisecond
//! inputs enough tries to see one quiet moment, as a best-of needs. Before each timed run the
//! heap is settled (see `settle_heap`), so neither pays on the clock for the other's frees.
//!
//! `cargo run --release -p ar-schema --example bench_inputs -- DIR [--runs N] [--min-seconds S] [--only FILE]`
//!
//! With `--only FILE` just that input is timed (the script interleaves tools file by file);
//! with `--runs 0` the inputs are written and nothing is timed.

#![expect(
    clippy::disallowed_methods,
    clippy::disallowed_types,
    reason = "an example is a caller: it reads the file and the arguments the crate does not"
)]

#[path = "../benches/support/mod.rs"]
mod support;

use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: bench_inputs DIR [--runs N] [--min-seconds S] [--only FILE]";
    let dir = std::path::PathBuf::from(args.next().ok_or(usage)?);
    let (mut runs, mut min_seconds, mut only) = (3usize, 1.0f64, None::<String>);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or(usage)?;
        match flag.as_str() {
            "--runs" => runs = value.parse()?,
            "--min-seconds" => min_seconds = value.parse()?,
            "--only" => only = Some(value),
            _ => return Err(usage.into()),
        }
    }
    std::fs::create_dir_all(&dir)?;
    println!("file\tbytes\tar_schema_seconds\tar_schema_mb_per_s\tserde_json_value_mb_per_s");
    for (name, bytes) in support::all(true) {
        if only.as_deref().is_some_and(|o| o != name) {
            continue;
        }
        let path = dir.join(name);
        if std::fs::read(&path).ok().as_deref() != Some(&bytes[..]) {
            std::fs::write(&path, &bytes)?;
        }
        if runs == 0 {
            continue;
        }
        let data = std::fs::read(&path)?;
        let (mut best, mut best_serde) = (f64::INFINITY, f64::INFINITY);
        let started = Instant::now();
        let mut done = 0;
        while done < runs || started.elapsed().as_secs_f64() < min_seconds {
            done += 1;
            settle_heap();
            let start = Instant::now();
            let mut b = ar_schema::SchemaBuilder::new();
            b.add_json_stream(&data)?;
            let schema = b.finish();
            let out = std::hint::black_box(schema.to_json_schema());
            best = best.min(start.elapsed().as_secs_f64());
            drop((out, schema));

            settle_heap();
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

/// Lets the allocator finish tidying up after the previous contender before the clock starts.
///
/// glibc's `free` leaves small chunks in "fast bins" and merges them only later, in the next
/// `malloc` of a large block. Without this, whichever tool runs next would pay, on the clock,
/// for merging the thousands of chunks the other one just freed (serde_json's `Value`s), as
/// no process that runs only one of them would. One large allocation, untimed, does it.
fn settle_heap() {
    drop(std::hint::black_box(Vec::<u8>::with_capacity(64 << 10)));
}
