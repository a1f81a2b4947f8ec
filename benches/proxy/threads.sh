#!/usr/bin/env bash
# Where each proxy's CPU goes, thread by thread: on-CPU time per request from
# /proc/PID/task/TID/schedstat (nanoseconds, unlike the 10 ms ticks of /proc/PID/stat), the time
# its threads sat runnable waiting for a core, and how often they were switched in.
#
# Requests/s on this shared VM move by ±25% from minute to minute; CPU per request moves less,
# and the split shows what a change did: the relay workers (`tokio-rt-worker`) against
# hudsucker's, and `ar-capture` (archiving and documenting) on its own. The proxies run in turn,
# ROUNDS times, alternating.
#
# SCHEME is a mode of common.sh: http, https (HTTP/1.1 inside TLS) or https-h2 (HTTP/2 inside TLS);
# ORIGIN=nginx puts nginx (HTTP/2 over TLS) behind the TLS modes. A run with errors stops the script.
#
# Usage: benches/proxy/threads.sh   (env: PROXIES="ar hudsucker_proxy" SCHEME=http CONNS=4 SECS=5
#                                     ROUNDS=2 AR_BIN=PATH ORIGIN=rust|nginx SKIP_BUILD=1)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PROXIES=${PROXIES:-ar hudsucker_proxy}
SCHEME=${SCHEME:-http}
CONNS=${CONNS:-4}
SECS=${SECS:-5}
ROUNDS=${ROUNDS:-2}
HTTP_PORT=18680 HTTPS_PORT=18643 PROXY_PORT=18601
source "$ROOT/benches/proxy/common.sh"
BIN=$TARGET/release
AR_BIN=${AR_BIN:-$BIN/ar}
MODES=$SCHEME
URL=$(url "$SCHEME" /small)

start_origin
check_origin
"$BIN/ar" ca --ca-dir "$WORK/ca" >/dev/null

# snapshot PID: "thread-name run-ns wait-ns slices" per thread name, summed over its threads
snapshot() {
  for task in /proc/"$1"/task/*; do
    echo "$(tr ' ' _ <"$task/comm") $(cut -d' ' -f1-3 "$task/schedstat")"
  done | awk '{r[$1]+=$2; w[$1]+=$3; s[$1]+=$4} END {for (k in r) print k, r[k], w[k], s[k]}' | sort
}

# shellcheck disable=SC2046 # mode_args is one word or none
load() { "$BIN/loadgen" "$URL" $(mode_args "$SCHEME") --proxy "127.0.0.1:$PROXY_PORT" --ca "$WORK/ca/ca.pem" -c "$CONNS" -s "$1"; }

for round in $(seq 1 "$ROUNDS"); do
  for proxy in $PROXIES; do
    case $proxy in
      ar) ar_proxy "$AR_BIN" $PROXY_PORT "$WORK/ar-out" >/dev/null & ;;
      *) bench_proxy "$BIN/$proxy" $PROXY_PORT 2>/dev/null & ;;
    esac
    pid=$!
    wait_port $PROXY_PORT
    out=$(load 1) # warm: connections, leaf certificates, the live spec's first endpoint
    no_errors "$proxy warm-up" "$out"
    before=$(snapshot $pid)
    out=$(load "$SECS" | tail -1)
    no_errors "$proxy $SCHEME" "$out"
    settle $pid
    after=$(snapshot $pid)
    n=$(field requests "$out")
    echo "round $round, $proxy, $SCHEME, $CONNS connections: $(field rps "$out") requests/s, $n requests"
    join <(echo "$before") <(echo "$after") | awk -v n="$n" '
      { run = $5 - $2; total += run
        if (run > 0) printf "  %-16s on CPU %6.0f ns/request  waiting for a core %6.0f ns/request  switched in %.3f/request\n", $1, run / n, ($6 - $3) / n, ($7 - $4) / n }
      END { printf "  %-16s on CPU %6.0f ns/request\n", "all threads", total / n }'
    kill -INT $pid; wait $pid 2>/dev/null || true
    rm -rf "$WORK/ar-out"
  done
done
