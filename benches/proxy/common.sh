# Shared by compare.sh and headtohead.sh (sourced after ROOT is set): the release build, a scratch
# directory cleaned up on exit with every started process, and the small helpers both scripts use.

TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
WORK=$(mktemp -d)
PIDS=()
# `ar` flushes its archive and spec on SIGTERM: wait for that before removing its directory.
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT

if [[ -z ${SKIP_BUILD:-} ]]; then
  echo "building (release)..." >&2
  (cd "$ROOT" && cargo build --release -q -p ar-cli)
  (cd "$ROOT/benches/proxy" && CARGO_TARGET_DIR=$TARGET cargo build --release -q)
fi

wait_port() { for _ in $(seq 1 100); do (echo >"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.1; done; echo "port $1 never opened" >&2; return 1; }
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }      # utime + stime, clock ticks
# Waits until PID has used no CPU for 100 ms (at most 10 s, for a proxy with steady background
# work). `ar proxy` may still be archiving and documenting the last flows of a run (its capture
# work runs at the lowest priority, up to ~0.5 s of traffic behind): this keeps that work out of
# the next proxy's measurement and in its own CPU figure.
settle() {
  local last=-1 now
  for _ in $(seq 1 100); do now=$(ticks "$1"); [[ $now == "$last" ]] && return 0; last=$now; sleep 0.1; done
}
field() { sed -n "s/.*$1=\([0-9.]*\).*/\1/p" <<<"$2"; }   # NAME=VALUE from a loadgen line
# A run with errors (failed requests, non-2xx answers) measured error pages, not the proxy: say so
# and stop, so no figure of it is kept. no_errors LABEL LOADGEN_LINE
no_errors() {
  local e; e=$(field errors "$2")
  [[ ${e:-0} == 0 ]] && return 0
  echo "error: $1: $e of $(field requests "$2") requests failed or were not 2xx; a run with errors is not a result" >&2
  touch "$WORK/not-a-result"
  exit 1
}
# After a measurement taken in a subshell (`< <(measure ...)`), whose exit cannot stop the script.
stop_if_errors() { [[ ! -e $WORK/not-a-result ]] || exit 1; }
# Proxies on 127.0.0.1:PORT with the CA in $WORK/ca, trusting the origin's CA ($WORK/origin-ca.pem).
# Only ever start them in the background (`ar_proxy ... &`): they `exec`, so `$!` is the proxy's
# own PID (for its /proc figures and its signals). ar_proxy BIN PORT OUT: a build of `ar`
# archiving to OUT. bench_proxy BIN PORT [HAR_OUT]: a bench binary (hudsucker_proxy, capture_core);
# hudsucker_proxy records to HAR_OUT when given.
ar_proxy() { exec "$1" proxy --port "$2" --out "$3" --ca-dir "$WORK/ca" --upstream-ca "$WORK/origin-ca.pem"; }
bench_proxy() { exec "$1" "$2" "$WORK/ca" "$WORK/origin-ca.pem" "${@:3}"; }
HZ=$(getconf CLK_TCK)
