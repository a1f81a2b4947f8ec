# Shared by compare.sh, headtohead.sh and threads.sh (sourced after ROOT, HTTP_PORT and HTTPS_PORT
# are set): the release build, a scratch directory cleaned up on exit with every started process,
# the origin, and the small helpers the scripts use.
#
# ORIGIN=rust (the default): the bench origin (src/bin/origin.rs), HTTP/1.1 only, plain on HTTP_PORT
# and over TLS on HTTPS_PORT. ORIGIN=nginx: the HTTPS requests go to nginx instead, on HTTPS_PORT + 1,
# `listen ... ssl http2`: a proxy that offers h2 upstream (both here do) talks HTTP/2 to it, whatever
# its client speaks. Same routes, same certificate (the bench origin still runs, for its CA and for
# plain HTTP). Needs /usr/sbin/nginx (Debian's `nginx` package) or NGINX=PATH.
#
# Each measurement is a MODE: `http` (HTTP/1.1, absolute-form through the proxy), `https` (CONNECT,
# then HTTP/1.1 inside TLS) or `https-h2` (CONNECT, then HTTP/2 inside TLS: `loadgen --h2`).
# MODES lists the ones a script runs: "http https" against the bench origin, "https https-h2"
# against nginx.

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
field() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p" <<<" $2"; }   # NAME=VALUE from a loadgen line
# A run with errors (failed requests, non-2xx answers, connections that could not be opened)
# measured error pages, not the proxy: print its figures beside the errors and their kinds, and
# stop, so no figure of it is kept. A loadgen that printed no result line (it crashed) is not a
# result either. no_errors LABEL LOADGEN_LINE
no_errors() {
  local e; e=$(field errors "$2")
  [[ $e == 0 ]] && return 0
  if [[ -z $e ]]; then
    echo "error: $1: loadgen printed no result line; not a result" >&2
  else
    echo "error: $1: $(field rps "$2") r/s, $(field requests "$2") good requests and $e errors ($(sed -n 's/.* why=\([^ ]*\).*/\1/p' <<<"$2")); a run with errors is not a result" >&2
  fi
  touch "$WORK/not-a-result"
  exit 1
}
# After a measurement taken in a subshell (`< <(measure ...)`), whose exit cannot stop the script.
stop_if_errors() { [[ ! -e $WORK/not-a-result ]] || exit 1; }
# Proxies on 127.0.0.1:PORT with the CA in $WORK/ca, trusting the origin's CA ($WORK/origin-ca.pem).
# Only ever start them in the background (`ar_proxy ... &`): they `exec`, so `$!` is the proxy's
# own PID (for its /proc figures and its signals). ar_proxy BIN PORT OUT [ARG...]: a build of `ar`
# archiving to OUT, with more `ar proxy` arguments (`--no-ui`). bench_proxy BIN PORT [HAR_OUT]: a bench binary (hudsucker_proxy, capture_core);
# hudsucker_proxy records to HAR_OUT when given.
ar_proxy() { exec "$1" proxy --port "$2" --out "$3" --ca-dir "$WORK/ca" --upstream-ca "$WORK/origin-ca.pem" "${@:4}"; }
bench_proxy() { exec "$1" "$2" "$WORK/ca" "$WORK/origin-ca.pem" "${@:3}"; }
HZ=$(getconf CLK_TCK)

ORIGIN=${ORIGIN:-rust}
NGINX=${NGINX:-/usr/sbin/nginx}
case $ORIGIN in
  rust) TLS_PORT=$HTTPS_PORT; MODES=${MODES:-http https} ;;
  nginx) TLS_PORT=$((HTTPS_PORT + 1)); MODES=${MODES:-https https-h2} ;;
  *) echo "ORIGIN is rust or nginx" >&2; exit 2 ;;
esac
# url MODE PATH: where a measurement of MODE sends its requests.
url() { if [[ $1 == http ]]; then echo "http://localhost:$HTTP_PORT$2"; else echo "https://localhost:$TLS_PORT$2"; fi; }
# mode_args MODE: loadgen's protocol flag for MODE (none, or --h2).
mode_args() { if [[ $1 == https-h2 ]]; then echo --h2; fi; }

# nginx_origin BIG_BYTES: nginx in the foreground on 127.0.0.1:TLS_PORT, one process
# (`master_process off`, so `$!` is nginx itself and one core is its limit, as on this 2-core
# machine it should be), config, logs and the large body under $WORK/nginx. The bench origin's
# routes: /small (the same 100-byte JSON document), /varied (that document with values that differ
# from answer to answer: the request's id and its connection's count) and /big (a BIG_BYTES file;
# the query is ignored).
#
# keepalive_requests is NGINX_KEEPALIVE_REQUESTS, 100 million by default: a measurement of relaying,
# not of reconnecting. nginx's own default is 1,000. With it, nginx sends a GOAWAY once a
# connection has carried 1,000 streams, and any request already in flight on that connection
# fails. Both proxies here share one h2 connection between all their clients, and both answer
# that request 502 instead of sending it again. About one request per 1,000 fails, so the run is
# not a result. NGINX_KEEPALIVE_REQUESTS=1000 reproduces this (benches/notes/proxy.md).
nginx_origin() {
  local dir=$WORK/nginx
  mkdir -p "$dir"
  head -c "$1" /dev/zero | tr '\0' x >"$dir/big"
  cat >"$dir/nginx.conf" <<EOF
daemon off;
master_process off;
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $dir/tmp-body;
  proxy_temp_path $dir/tmp-proxy;
  fastcgi_temp_path $dir/tmp-fastcgi;
  uwsgi_temp_path $dir/tmp-uwsgi;
  scgi_temp_path $dir/tmp-scgi;
  keepalive_requests ${NGINX_KEEPALIVE_REQUESTS:-100000000};
  server {
    listen 127.0.0.1:$TLS_PORT ssl http2;
    server_name localhost;
    ssl_certificate $WORK/origin.pem;
    ssl_certificate_key $WORK/origin.key;
    ssl_protocols TLSv1.2 TLSv1.3;
    location = /small {
      default_type application/json;
      return 200 '{"id":42,"name":"Widget","price":9.99,"tags":["a","b"],"stock":true,"updated":"2026-11-21T08:00:00Z"}';
    }
    location = /varied {
      default_type application/json;
      return 200 '{"id":\$connection_requests,"name":"Widget \$request_id","price":\$connection_requests.99,"tags":["a","b"],"stock":true,"updated":"2026-11-21T08:00:00Z"}';
    }
    location = /big {
      default_type application/octet-stream;
      alias $dir/big;
    }
  }
}
EOF
  exec "$NGINX" -p "$dir" -e "$dir/error.log" -c "$dir/nginx.conf"
}

# start_origin [BIG_BYTES]: the bench origin, and nginx with ORIGIN=nginx; returns once they listen.
start_origin() {
  "$TARGET/release/origin" "$HTTP_PORT" "$HTTPS_PORT" "$WORK" >/dev/null & PIDS+=($!)
  wait_port "$HTTP_PORT"; wait_port "$HTTPS_PORT"
  if [[ $ORIGIN == nginx ]]; then
    nginx_origin "${1:-1000000}" & PIDS+=($!)
    wait_port "$TLS_PORT"
  fi
}
# check_origin: one short direct run per mode before any measurement, so an origin that does not
# answer 2xx in some mode (or an nginx without h2) stops the script before any figure is taken.
check_origin() {
  local mode out
  for mode in $MODES; do
    # shellcheck disable=SC2046 # mode_args is one word or none
    out=$("$TARGET/release/loadgen" "$(url "$mode" /small)" --ca "$WORK/origin-ca.pem" $(mode_args "$mode") -c 1 -s 0.2)
    no_errors "direct $mode to the $ORIGIN origin" "$out"
  done
}
