#!/usr/bin/env bash
# `ar proxy` (archiving and documenting every flow) against the hudsucker proxy, head to head:
# requests/s and CPU per request for small keep-alive requests, measured in back-to-back pairs.
#
# compare.sh runs each proxy's whole suite in turn, so the two throughput figures it compares are
# taken a minute apart, and on a shared VM the machine's speed moves by ±25% from minute to
# minute. Here both proxies stay up (an idle proxy costs nothing) and each pair measures one,
# then the other, within seconds, alternating which goes first. The figure to read is the
# median of the per-pair ratios, with how many pairs `ar` won and the sign test's p-value for
# that count (below 0.05: one proxy is ahead beyond the noise; 8 pairs can show that only when one
# proxy wins 8 of 8 or 0 of 8, so use PAIRS=20 for a verdict); the spread shows the noise.
#
# BASELINE=PATH puts another build of `ar` (`ar proxy`) in hudsucker's place: an A/B of a change,
# measured the same way (run it both ways round; each build gets its own archive). AR_ARGS and
# BASELINE_ARGS add `ar proxy` arguments to each: `BASELINE=target/release/ar BASELINE_ARGS=--no-ui`
# measures what the live web view (on by default, no page open) costs. AR_WATCH=1 opens the subject's
# page stream (`/api/events`, every flow pushed as a row, as an open page gets it) for the whole run:
# with BASELINE set to the same build, what a page open and streaming costs.
#
# HUD_HAR=1 makes hudsucker record too, built as `ar` is (bodies collected, each exchange handed to a
# writer thread that serializes a HAR line and appends it to a file): the capture `ar` does, less
# the live spec. The target stays the plain hudsucker; this shows what recording costs there.
#
# AGAINST=1 measures what `--against` costs per flow: the subject is `ar proxy --against
# benches/proxy/origin.openapi.yaml` (the origin's routes, documented, so every flow is matched to
# its operation and its answer held against the documented status, media type and schema), the
# baseline the same build without it (BASELINE defaults to it). At the end the subject's drift.json
# must count every flow it archived as held against the spec and matched, with no finding: else
# the run did not measure the full check and is not a result.
#
# REVERSE=1 measures reverse mode next to regular mode, against nginx (ORIGIN=nginx, which it
# sets): the subject is `ar proxy --reverse https://localhost:NGINX_PORT`, which the load client
# reaches as the origin's clients would, at its own address (no proxy, no CONNECT), the baseline
# the same build (BASELINE defaults to it) as the clients' HTTPS proxy. Modes: `https` and
# `https-h2` (the client speaks TLS to the reverse listener, ar's certificate for localhost, HTTP/1.1
# or HTTP/2 by ALPN; to the baseline it opens a CONNECT tunnel and the same TLS inside), and `http`
# (the client in the clear to the reverse listener; the baseline's clients still go over HTTPS,
# nginx having no plain port, so that pair compares what each mode's clients do). Both modes talk
# HTTP/2 to nginx.
#
# ROUTE=/varied asks for a document of /small's shape whose values differ in every answer, where
# /small (the default) answers the same bytes each time: with AGAINST=1, what checking a body never
# met before costs (a repeated one is answered from a memo of recent checks).
#
# SUBJECT=ar-core measures the ar-capture proxy alone instead (`capture_core`: every flow is
# built, then dropped by its sink), which shows what archiving and documenting cost.
#
# `ar` archives every flow: the default run writes about 1.5 GB under $TMPDIR (removed at the end).
#
# CONNS may list several connection counts ("1 4 16"): a few connections measure the latency
# each proxy adds (throughput is bound by round trips), many measure CPU per request (the two
# cores are saturated, shared by the load generator, the origin and the proxy).
#
# ORIGIN=nginx measures against nginx over TLS with HTTP/2 (see common.sh), with two client
# modes: HTTP/1.1 inside the CONNECT tunnel's TLS (`https`) and HTTP/2 there (`https-h2`).
# MODES picks the modes ("http https" by default against the bench origin).
#
# Every measurement counts errors (failed requests, non-2xx answers): one error stops the run,
# since it measured error pages (common.sh, no_errors). The summary prints the totals.
#
# Usage: benches/proxy/headtohead.sh     (env: PAIRS=10 SECS=3 CONNS=16 SUBJECT=ar BASELINE= HUD_HAR=
#                                         AR_ARGS= BASELINE_ARGS= AR_WATCH= AGAINST= ROUTE=/small REVERSE= ORIGIN=rust|nginx MODES=
#                                         SKIP_BUILD=1)
set -euo pipefail
ROUTE=${ROUTE:-/small}

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PAIRS=${PAIRS:-10}
SECS=${SECS:-3}
CONNS=${CONNS:-16}
SUBJECT=${SUBJECT:-ar}
BASELINE=${BASELINE:-}
HUD_HAR=${HUD_HAR:-}
OTHER=hudsucker; [[ -n $HUD_HAR ]] && OTHER=hudsucker+HAR; [[ -n $BASELINE ]] && OTHER=baseline
NAME=$SUBJECT # the subject as the figures name it
HTTP_PORT=18280 HTTPS_PORT=18243 AR_PORT=18201 HS_PORT=18202
if [[ -n ${REVERSE:-} ]]; then
  [[ ${ORIGIN:-nginx} == nginx ]] || { echo "REVERSE measures against nginx (ORIGIN=nginx)" >&2; exit 2; }
  ORIGIN=nginx MODES=${MODES:-http https https-h2}
fi
source "$ROOT/benches/proxy/common.sh"
BIN=$TARGET/release
if [[ -n ${AGAINST:-} ]]; then
  [[ $SUBJECT == ar ]] || { echo "AGAINST measures \`ar proxy --against\` (SUBJECT=ar)" >&2; exit 2; }
  [[ -z $BASELINE ]] && OTHER=ar
  BASELINE=${BASELINE:-$BIN/ar}
  AR_ARGS="${AR_ARGS:-} --against $ROOT/benches/proxy/origin.openapi.yaml"
  NAME=ar+against
fi

if [[ -n ${REVERSE:-} ]]; then
  [[ $SUBJECT == ar ]] || { echo "REVERSE measures \`ar proxy --reverse\` (SUBJECT=ar)" >&2; exit 2; }
  [[ -z $BASELINE ]] && OTHER=ar
  BASELINE=${BASELINE:-$BIN/ar}
  AR_ARGS="${AR_ARGS:-} --reverse https://localhost:$TLS_PORT"
  NAME=ar-reverse
fi

start_origin
check_origin
# With AR_WATCH both `ar` builds print to files (the subject's names its page), else to /dev/null.
AR_STDOUT=/dev/null BASELINE_STDOUT=/dev/null
[[ -n ${AR_WATCH:-} ]] && AR_STDOUT=$WORK/ar.stdout BASELINE_STDOUT=$WORK/baseline.stdout
"$BIN/ar" ca --ca-dir "$WORK/ca" >/dev/null
case $SUBJECT in
  # shellcheck disable=SC2086 # AR_ARGS is words
  ar) ar_proxy "$BIN/ar" $AR_PORT "$WORK/ar-out" ${AR_ARGS:-} >"$AR_STDOUT" & ;;
  ar-core) bench_proxy "$BIN/capture_core" $AR_PORT 2>/dev/null & ;;
  *) echo "SUBJECT is ar or ar-core" >&2; exit 2 ;;
esac
AR_PID=$!; PIDS+=($AR_PID)
if [[ -n $BASELINE ]]; then
  # shellcheck disable=SC2086 # BASELINE_ARGS is words
  ar_proxy "$BASELINE" $HS_PORT "$WORK/baseline-out" ${BASELINE_ARGS:-} >"$BASELINE_STDOUT" &
else
  bench_proxy "$BIN/hudsucker_proxy" $HS_PORT ${HUD_HAR:+"$WORK/hudsucker.har.jsonl"} &
fi
HS_PID=$!; PIDS+=($HS_PID)
wait_port $AR_PORT; wait_port $HS_PORT
if [[ -n ${AR_WATCH:-} ]]; then
  ui=$(grep -o 'http://127.0.0.1:[0-9]*/?token=[0-9a-f]*' "$AR_STDOUT" | head -1)
  [[ -n $ui ]] || { echo "AR_WATCH: the subject printed no web view address" >&2; exit 2; }
  curl -sN "${ui/\/?token=//api/events?token=}" >"$WORK/events.txt" &
  PIDS+=($!)
fi

# loadgen_target PORT MODE: loadgen's URL (and proxy) for MODE through PORT. With REVERSE the subject
# is reached at its own address, as the origin, and the baseline's `http` is `https`.
loadgen_target() {
  if [[ -n ${REVERSE:-} && $1 == "$AR_PORT" ]]; then
    local scheme=https; [[ $2 == http ]] && scheme=http
    echo "$scheme://localhost:$AR_PORT$ROUTE"
  else
    local mode=$2; [[ -n ${REVERSE:-} && $mode == http ]] && mode=https
    echo "$(url "$mode" "$ROUTE") --proxy 127.0.0.1:$1"
  fi
}

# measure PID PORT MODE CONNS: "requests/s CPU-ms-per-1k-requests requests errors retried" (retried:
# requests the client sent again because their connection closed before they were taken); the CPU includes
# what the proxy still does after the load stops (see settle).
measure() {
  local t0 out n
  t0=$(ticks "$1")
  # shellcheck disable=SC2046 # loadgen_target and mode_args are words
  out=$("$BIN/loadgen" $(loadgen_target "$2" "$3") $(mode_args "$3") --ca "$WORK/ca/ca.pem" -c "$4" -s "$SECS")
  no_errors "$3, $4 connections, through port $2" "$out"
  settle "$1"
  n=$(field requests "$out")
  awk -v r="$(field rps "$out")" -v d=$(( $(ticks "$1") - t0 )) -v hz="$HZ" -v n="$n" \
    'BEGIN{printf "%d %.1f %d", r, d / hz / n * 1e6, n}'
  echo " $(field errors "$out") $(field retried "$out")"
}

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
declare -A RATIOS CPU_RATIOS WINS
RELAYED=0 # requests sent through the subject, warm-ups included: `ar` must archive each one
HS_RELAYED=0 # and through the other proxy (with HUD_HAR=1 it records each one)
ERRORS=0 HS_ERRORS=0 # errors seen through each (any one stops the run before this is printed)
RETRIED=0 HS_RETRIED=0
for conns in $CONNS; do
  for scheme in $MODES; do
    key=$conns.$scheme
    # warm both: connections, leaf certificates, the live spec's first endpoint
    read -r _ _ n e r < <(measure $AR_PID $AR_PORT "$scheme" "$conns") || stop_if_errors
    RELAYED=$(( RELAYED + n )); ERRORS=$(( ERRORS + e )); RETRIED=$(( RETRIED + r ))
    read -r _ _ n e r < <(measure $HS_PID $HS_PORT "$scheme" "$conns") || stop_if_errors
    HS_RELAYED=$(( HS_RELAYED + n )); HS_ERRORS=$(( HS_ERRORS + e )); HS_RETRIED=$(( HS_RETRIED + r ))
    stop_if_errors
    WINS[$key]=0
    for i in $(seq 1 "$PAIRS"); do
      if (( i % 2 )); then
        read -r ar_rps ar_cpu n e r < <(measure $AR_PID $AR_PORT "$scheme" "$conns") || stop_if_errors
        read -r hs_rps hs_cpu hs_n hs_e hs_r < <(measure $HS_PID $HS_PORT "$scheme" "$conns") || stop_if_errors
      else
        read -r hs_rps hs_cpu hs_n hs_e hs_r < <(measure $HS_PID $HS_PORT "$scheme" "$conns") || stop_if_errors
        read -r ar_rps ar_cpu n e r < <(measure $AR_PID $AR_PORT "$scheme" "$conns") || stop_if_errors
      fi
      stop_if_errors
      RELAYED=$(( RELAYED + n )); HS_RELAYED=$(( HS_RELAYED + hs_n ))
      ERRORS=$(( ERRORS + e )); HS_ERRORS=$(( HS_ERRORS + hs_e ))
      RETRIED=$(( RETRIED + r )); HS_RETRIED=$(( HS_RETRIED + hs_r ))
      ratio=$(awk -v a="$ar_rps" -v b="$hs_rps" 'BEGIN{printf "%.3f", a / b}')
      cpu_ratio=$(awk -v a="$hs_cpu" -v b="$ar_cpu" 'BEGIN{printf "%.3f", a / b}')
      RATIOS[$key]+=" $ratio"; CPU_RATIOS[$key]+=" $cpu_ratio"
      awk -v r="$ratio" 'BEGIN{exit !(r >= 1)}' && WINS[$key]=$(( WINS[$key] + 1 ))
      printf '%3s conns %-8s pair %2d: %s %6d r/s %5.1f ms CPU/1k   %s %6d r/s %5.1f ms CPU/1k   ratio %s\n' \
        "$conns" "$scheme" "$i" "$NAME" "$ar_rps" "$ar_cpu" "$OTHER" "$hs_rps" "$hs_cpu" "$ratio" >&2
    done
  done
done
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)

stats() { tr ' ' '\n' <<<"$1" | grep . | sort -g | awk '{v[NR] = $1} END {m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "median %.2fx (min %.2fx, max %.2fx)", m, v[1], v[NR]}'; }
# sign_test WINS PAIRS: the two-sided sign-test p-value of winning WINS of PAIRS pairs (read as the header says).
sign_test() {
  awk -v w="$1" -v n="$2" 'BEGIN {
    c = 1; below = 0; above = 0
    for (k = 0; k <= n; k++) { p = c / 2 ^ n; if (k <= w) below += p; if (k >= w) above += p; c = c * (n - k) / (k + 1) }
    t = 2 * (below < above ? below : above); printf "%.2f", (t > 1 ? 1 : t) }'
}
echo
echo "## $NAME vs $OTHER, head to head ($(date -u '+%F %H:%M UTC'), $(nproc) cores, loopback, $ORIGIN origin, $PAIRS pairs of ${SECS}s runs per mode and connection count; load average before $LOAD_BEFORE, after $LOAD_AFTER)"
for conns in $CONNS; do
  for scheme in $MODES; do
    key=$conns.$scheme
    echo "$conns conns, $scheme: requests/s $NAME/$OTHER $(stats "${RATIOS[$key]}"), $NAME ahead in ${WINS[$key]} of $PAIRS pairs (sign test p = $(sign_test "${WINS[$key]}" "$PAIRS")); CPU per request $OTHER/$NAME $(stats "${CPU_RATIOS[$key]}")"
  done
done
echo "errors (failed requests, non-2xx answers): $NAME $ERRORS beside $RELAYED good requests, $OTHER $HS_ERRORS beside $HS_RELAYED; requests the client sent again (connection closed before they were taken): $NAME $RETRIED, $OTHER $HS_RETRIED"
if [[ $SUBJECT == ar ]]; then
  sleep 0.2 # the last tick's flows
  archived=$(wc -l <"$WORK/ar-out/flows.jsonl")
  echo "ar relayed $RELAYED requests and archived $archived flows$( ((archived == RELAYED)) && echo ", every one" || echo ": SOME FLOWS ARE MISSING")"
fi
if [[ -n ${AR_WATCH:-} ]]; then
  echo "the page stream got $(grep -c '^event: flow' "$WORK/events.txt") flow events of $RELAYED flows (a stream that falls 4,096 behind is reset and skips ahead, as a page would)"
fi
if [[ -n $HUD_HAR && -z $BASELINE ]]; then
  recorded=$(wc -l <"$WORK/hudsucker.har.jsonl")
  echo "hudsucker+HAR relayed $HS_RELAYED requests and recorded $recorded flows$( ((recorded == HS_RELAYED)) && echo ", every one" || echo " (its writer thread may still be behind)")"
fi
if [[ -n ${AGAINST:-} ]]; then
  # `ar` writes drift.json beside the spec, a last time on SIGTERM.
  kill "$AR_PID"; wait "$AR_PID" 2>/dev/null || true
  drift=$WORK/ar-out/drift.json
  [[ -f $drift ]] || { echo "error: AGAINST: the subject wrote no drift.json; not a result" >&2; exit 1; }
  read -r flows matched findings < <(python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))["summary"]
print(s["flows"], s["flows_matched"], s["shadow_endpoints"] + s["zombie_endpoints"] + s["violations"] + s["undocumented"] + s["findings_not_listed"])' "$drift")
  echo "$NAME held $flows flows against the spec: $matched matched to a documented operation, $findings findings"
  if (( flows != archived || matched != flows || findings != 0 )); then
    echo "error: AGAINST: every archived flow ($archived) must be held against the spec and matched, with no finding; not a result" >&2
    exit 1
  fi
fi
