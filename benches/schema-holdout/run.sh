#!/usr/bin/env bash
# Held-out schema conformance on spec-bench's corpus: ar infers a spec from the
# even HAR entries of each API, and the odd entries' 2xx JSON responses are
# validated against it (OAS 3.0 semantics, formats asserted). See README.md.
#
#   benches/schema-holdout/run.sh [--details]
#
# Env: AR_BIN          the ar binary (default target/release/ar)
#      HOLDOUT_OUT     where the venv, train HARs, specs, scores.json and details.txt
#                      go (default target/schema-holdout)
#      APIS="zoom plaid"  a subset of the corpus
#      SPEC_BENCH_DIR  spec-bench, for its corpus (default ../shared/spec-bench beside the repo)
#      TOOL_TIMEOUT    seconds per `ar import` (default 300)
#      PYTHON          the interpreter for the venv (default python3, >= 3.10)
# Relative paths are taken from the current directory; the defaults sit in the
# repository. Exits 0 whatever the scores; non-zero only when the harness
# itself failed.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DETAILS=()
for a in "$@"; do
  case "$a" in
    --details) DETAILS=(--details) ;;
    *) echo "usage: $0 [--details]" >&2; exit 2 ;;
  esac
done

AR="${AR_BIN:-$ROOT/target/release/ar}"
[[ "$AR" == */* ]] || AR="$(command -v "$AR" || true)"
[ -x "$AR" ] || { echo "error: no ar binary at '${AR_BIN:-$ROOT/target/release/ar}'" \
  "(cargo build --release, or set AR_BIN)" >&2; exit 3; }
AR="$(realpath "$AR")"
BENCH="${SPEC_BENCH_DIR:-$ROOT/../shared/spec-bench}"
[ -d "$BENCH/corpus" ] || { echo "error: no corpus at $BENCH/corpus (set SPEC_BENCH_DIR)" >&2; exit 3; }
BENCH="$(realpath "$BENCH")"

# checked before anything is created: the corpus side stays untouched
OUT="$(realpath -m "${HOLDOUT_OUT:-$ROOT/target/schema-holdout}")"
case "$OUT/" in
  "$BENCH/"*) echo "error: HOLDOUT_OUT must not be inside $BENCH" >&2; exit 2 ;;
esac
mkdir -p "$OUT"

# pinned Python packages, in a venv under OUT (spec-bench's two, plus the
# versions of the schema validator and jsonschema they resolve to)
VENV="$OUT/venv"
REQS="PyYAML==6.0.3 openapi-spec-validator==0.9.0 openapi-schema-validator==0.9.0 jsonschema==4.26.0"
if [ "$(cat "$VENV/.reqs" 2>/dev/null)" != "$REQS" ]; then
  rm -rf "$VENV"
  "${PYTHON:-python3}" -m venv "$VENV"
  # shellcheck disable=SC2086
  "$VENV/bin/pip" install -q --disable-pip-version-check $REQS
  echo "$REQS" > "$VENV/.reqs"
fi

"$VENV/bin/python" "$ROOT/benches/schema-holdout/holdout.py" --corpus "$BENCH/corpus" --out "$OUT" \
  --ar "$AR" --apis "${APIS:-}" --timeout "${TOOL_TIMEOUT:-300}" "${DETAILS[@]}"
