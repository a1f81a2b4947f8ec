#!/usr/bin/env bash
# User-space instructions per request of one proxy, all threads, under callgrind: repeatable where
# wall-clock figures on a shared machine are not (benches/notes/proxy.md).
#
# Usage: benches/proxy/callgrind.sh ar|capture_core|hudsucker_proxy http|https
#        (after `cargo build --release -p ar-cli` and a release build of benches/proxy; needs valgrind)
#        AR_BIN=PATH measures another build of `ar` (say, one with a different allocator).
#        AR_ARGS adds `ar proxy` arguments: AR_ARGS="--against $PWD/benches/proxy/origin.openapi.yaml"
#        holds every flow against the origin's documented routes (what `--against` costs a flow).
#        ROUTE=/varied asks for answers whose values differ each time (the default /small repeats one).
# The proxy runs under callgrind; 4 keep-alive connections warm it up for 3 s, the counters are
# zeroed, then 8 s of load are measured. Requests per second under callgrind are ~30x lower than
# natively, so fixed per-second costs (the spec rewrite, timers) weigh more than at full speed.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}/release
PROXY=${1:?proxy: ar, capture_core or hudsucker_proxy}
SCHEME=${2:?scheme: http or https}
HTTP_PORT=18480 HTTPS_PORT=18493 PROXY_PORT=18401
WORK=$(mktemp -d)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$WORK"; }
trap cleanup EXIT

"$TARGET/origin" $HTTP_PORT $HTTPS_PORT "$WORK" >/dev/null 2>&1 & PIDS+=($!)
sleep 0.5
"$TARGET/ar" ca --ca-dir "$WORK/ca" >/dev/null
port=$HTTP_PORT; [[ $SCHEME == https ]] && port=$HTTPS_PORT
if [[ $PROXY == ar ]]; then
  # shellcheck disable=SC2086 # AR_ARGS is words
  valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.%p" "${AR_BIN:-$TARGET/ar}" proxy --port $PROXY_PORT \
    --out "$WORK/out" --ca-dir "$WORK/ca" --upstream-ca "$WORK/origin-ca.pem" ${AR_ARGS:-} >/dev/null 2>&1 &
else
  valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.%p" "$TARGET/$PROXY" $PROXY_PORT \
    "$WORK/ca" "$WORK/origin-ca.pem" >/dev/null 2>&1 &
fi
pid=$!; PIDS+=($pid)
sleep 8
load() { "$TARGET/loadgen" "$SCHEME://localhost:$port${ROUTE:-/small}" --proxy 127.0.0.1:$PROXY_PORT \
  --ca "$WORK/ca/ca.pem" -c 4 -s "$1" 2>&1 | tail -1; }
load 3 >/dev/null
callgrind_control -z $pid >/dev/null 2>&1
out=$(load 8)
sleep 1
callgrind_control -d $pid >/dev/null 2>&1
sleep 1
kill -INT $pid; sleep 3
n=$(sed -n 's/.*requests=\([0-9]*\).*/\1/p' <<<"$out")
dump=$(ls -t "$WORK"/cg.*.1 | head -1)
ir=$(callgrind_annotate "$dump" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1; exit}')
echo "$PROXY $SCHEME requests=$n instructions=$ir per_request=$((ir / n))"
if [[ -n ${KEEP:-} ]]; then cp "$dump" "$KEEP"; echo "profile: $KEEP"; fi
