#!/usr/bin/env bash
# Side by side: ar-schema vs GenSON (Python) on the same generated files, one core each.
#
#   benches/schema/compare_genson.sh [--runs N]
#
# 1. Writes the benchmark inputs (the exact bytes crates/ar-schema/benches/infer.rs uses) to
#    benches/schema/data/ and times ar-schema on each (examples/bench_inputs.rs, release build).
# 2. Installs genson from PyPI into benches/.venv (once) and times it on the same files with
#    benches/schema/genson_time.py: json.loads + SchemaBuilder.add_object + to_schema, best of N.
# 3. Prints both throughputs and the ratio.
# Interpreter start-up and file reading are excluded on both sides.
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=3
if [[ "${1:-}" == "--runs" ]]; then RUNS="$2"; fi
DATA=benches/schema/data
VENV=benches/.venv

if [[ ! -x "$VENV/bin/python" ]]; then
  python3 -m venv "$VENV"
fi
"$VENV/bin/python" -c 'import genson' 2>/dev/null || "$VENV/bin/pip" install --quiet genson

echo "== ar-schema (cargo run --release --example bench_inputs), best of $RUNS" >&2
cargo run --quiet --release -p ar-schema --example bench_inputs -- "$DATA" --runs "$RUNS" > "$DATA.ar.tsv"
echo "== genson $("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("genson"))') ($("$VENV/bin/python" -V)), best of $RUNS" >&2
tail -n +2 "$DATA.ar.tsv" | cut -f1 | while read -r name; do
  "$VENV/bin/python" benches/schema/genson_time.py "$DATA/$name" "$RUNS"
done > "$DATA.genson.tsv"

printf '%-22s %6s %15s %15s %12s %9s %8s\n' file MB "ar-schema MB/s" "serde_json MB/s" "genson MB/s" "vs serde" "vs genson"
join -t $'\t' <(tail -n +2 "$DATA.ar.tsv" | sort) <(sort "$DATA.genson.tsv") |
  awk -F'\t' '{ printf "%-22s %6.1f %15.1f %15.1f %12.2f %8.2fx %7.0fx\n", $1, $2/1e6, $4, $5, $7, $4/$5, $4/$7 }'
