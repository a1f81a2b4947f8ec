#!/usr/bin/env bash
# Runs every cargo-fuzz target (fuzz/fuzz_targets/) for a given time and
# reports executions per second, coverage and crashes: not part of CI.
#
#   benches/fuzz.sh SECONDS [TARGET ...]     (default: every target)
#
# Needs the nightly toolchain and cargo-fuzz (`rustup toolchain install
# nightly`, `cargo install cargo-fuzz --locked`). Runs at `nice -n 19`, one
# target at a time. The committed seeds (fuzz/corpus/<target>/) are read; what
# the fuzzer adds goes to fuzz/work/<target>/ (ignored by git), so a later run
# starts from there. The targets are built without a sanitizer (FUZZ_SANITIZER,
# default `none`): ar and its checks are safe Rust, and AddressSanitizer slowed
# the document-building targets to about ten executions a second; set
# FUZZ_SANITIZER=address to hunt memory errors in dependencies' unsafe code.
# A crash lands in fuzz/artifacts/<target>/: copy it into
# fuzz/corpus/<target>/ as a regression input (CI replays it on stable through
# crates/ar-fuzz-checks/tests/corpus.rs) and fix it.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"

seconds=${1:?usage: benches/fuzz.sh SECONDS [TARGET ...]}
shift
if [ $# -gt 0 ]; then
  targets=("$@")
else
  targets=()
  for f in fuzz_targets/*.rs; do targets+=("$(basename "$f" .rs)"); done
fi

sanitizer=${FUZZ_SANITIZER:-none}
nice -n 19 cargo +nightly fuzz build -O -s "$sanitizer"
mkdir -p work logs
printf '| target | seconds | executions | exec/s | coverage (cov) | features (ft) | corpus | crashes |\n'
printf '|---|---|---|---|---|---|---|---|\n'
for target in "${targets[@]}"; do
  mkdir -p "work/$target" "artifacts/$target"
  log="logs/$target.log"
  before=$(find "artifacts/$target" -type f | wc -l)
  started=$(date +%s)
  # -timeout: an input taking 20 s is a hang; -rss_limit_mb: a leak or a bomb.
  nice -n 19 cargo +nightly fuzz run -O -s "$sanitizer" "$target" "work/$target" "corpus/$target" -- \
    -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 \
    >"$log" 2>&1 || true
  took=$(($(date +%s) - started))
  after=$(find "artifacts/$target" -type f | wc -l)
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  last=$(grep -E '^#[0-9]+' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' <<<"$last" | grep -o '[0-9]*' || echo "?")
  ft=$(grep -o 'ft: [0-9]*' <<<"$last" | grep -o '[0-9]*' || echo "?")
  corpus=$(grep -o 'corp: [0-9]*' <<<"$last" | grep -o '[0-9]*' || echo "?")
  printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' \
    "$target" "$took" "$execs" "$rate" "$cov" "$ft" "$corpus" "$((after - before))"
done
