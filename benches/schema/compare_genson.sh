#!/usr/bin/env bash
# Side by side: ar-schema vs GenSON (Python) on the same generated files, one core each.
#
#   benches/schema/compare_genson.sh [--runs N] [--min-seconds S]
#
# 1. Writes the benchmark inputs (the exact bytes crates/ar-schema/benches/infer.rs uses) to
#    benches/schema/data/ (examples/bench_inputs.rs, release build).
# 2. Installs genson from PyPI into benches/.venv (once).
# 3. File by file, times ar-schema (and serde_json into Value, alternately) and then GenSON
#    (benches/schema/genson_time.py: json.loads + SchemaBuilder.add_object + to_schema) back to
#    back, so both see the same load on a shared machine. Each side: best of N runs, and of as
#    many more as fit in S seconds (default 1), so sub-millisecond inputs get enough tries.
# 4. Prints both throughputs and the ratio.
# Interpreter start-up and file reading are excluded on both sides.
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=3
MIN_SECONDS=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    --runs) RUNS="$2"; shift 2 ;;
    --min-seconds) MIN_SECONDS="$2"; shift 2 ;;
    *) echo "usage: $0 [--runs N] [--min-seconds S]" >&2; exit 2 ;;
  esac
done
DATA=benches/schema/data
VENV=benches/.venv

if [[ ! -x "$VENV/bin/python" ]]; then
  python3 -m venv "$VENV"
fi
"$VENV/bin/python" -c 'import genson' 2>/dev/null || "$VENV/bin/pip" install --quiet genson

cargo build --quiet --release -p ar-schema --example bench_inputs
BIN="${CARGO_TARGET_DIR:-target}/release/examples/bench_inputs"
"$BIN" "$DATA" --runs 0 > /dev/null
echo "== ar-schema (examples/bench_inputs, release) and genson $("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("genson"))') ($("$VENV/bin/python" -V)), file by file, best of >= $RUNS runs and >= ${MIN_SECONDS}s each" >&2
: > "$DATA.ar.tsv.tmp"
: > "$DATA.genson.tsv"
for name in $(cd "$DATA" && ls); do
  "$BIN" "$DATA" --runs "$RUNS" --min-seconds "$MIN_SECONDS" --only "$name" | tail -n +2 >> "$DATA.ar.tsv.tmp"
  "$VENV/bin/python" benches/schema/genson_time.py "$DATA/$name" "$RUNS" "$MIN_SECONDS" >> "$DATA.genson.tsv"
done
{ printf 'file\tbytes\tar_schema_seconds\tar_schema_mb_per_s\tserde_json_value_mb_per_s\n'; cat "$DATA.ar.tsv.tmp"; } > "$DATA.ar.tsv"
rm -f "$DATA.ar.tsv.tmp"

printf '%-22s %6s %15s %15s %12s %9s %8s\n' file MB "ar-schema MB/s" "serde_json MB/s" "genson MB/s" "vs serde" "vs genson"
join -t $'\t' <(tail -n +2 "$DATA.ar.tsv" | sort) <(sort "$DATA.genson.tsv") |
  awk -F'\t' '{ printf "%-22s %6.1f %15.1f %15.1f %12.2f %8.2fx %7.0fx\n", $1, $2/1e6, $4, $5, $7, $4/$5, $4/$7 }'
