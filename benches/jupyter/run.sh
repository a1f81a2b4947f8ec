#!/usr/bin/env bash
# A scripted JupyterLab journey through `ar proxy`, scored against JupyterLab's published API
# documents: files and directories read, saved, renamed, created and deleted, checkpoints,
# kernels, sessions, terminals, config sections, settings (`@scope/name:plugin`), workspaces.
# What the issue #45 classes 4 and 5 describe (identifiers with punctuation, file paths with
# operations after the file) on a real server.
#
# Usage: benches/jupyter/run.sh   (from the project root, after `cargo build --release -p ar-cli`)
#        AR_BIN=PATH measures another build. Installs JupyterLab into target/jupyter-venv (PyPI).
# Prints the score and leaves the spec in target/jupyter/spec.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE="$ROOT/benches/jupyter"
AR=${AR_BIN:-$ROOT/target/release/ar}
VENV="$ROOT/target/jupyter-venv"
OUT="$ROOT/target/jupyter"
LAB_PORT=${LAB_PORT:-18899} PROXY_PORT=${PROXY_PORT:-18777}
if [[ ! -x $VENV/bin/jupyter-lab ]]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check -r "$HERE/requirements.txt"
fi
rm -rf "$OUT"; mkdir -p "$OUT/root/data" "$OUT/home"
echo 'print(1)' > "$OUT/root/hello.py"; echo 'a,b' > "$OUT/root/data/x.csv"; printf '# Notes\n' > "$OUT/root/notes.md"
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
(cd "$OUT/root" && HOME="$OUT/home" JUPYTER_CONFIG_DIR="$OUT/home/.jupyter" exec "$VENV/bin/jupyter-lab" \
  --no-browser --port "$LAB_PORT" --ip 127.0.0.1 --ServerApp.token='' --ServerApp.password='' \
  --ServerApp.disable_check_xsrf=True --allow-root >"$OUT/lab.log" 2>&1) & PIDS+=($!)
for _ in $(seq 60); do curl -s -o /dev/null "http://127.0.0.1:$LAB_PORT/api/status" && break; sleep 1; done
"$AR" proxy --port "$PROXY_PORT" --out "$OUT/capture" >"$OUT/proxy.log" 2>&1 & PIDS+=($!)
for _ in $(seq 30); do curl -s -o /dev/null "http://127.0.0.1:$PROXY_PORT/" && break; sleep 0.2; done
"$VENV/bin/python" "$HERE/journey.py" "http://127.0.0.1:$PROXY_PORT" "http://127.0.0.1:$LAB_PORT" >"$OUT/journey.log"
sleep 1
kill "${PIDS[1]}"; wait "${PIDS[1]}" 2>/dev/null || true
"$AR" import "$OUT/capture/flows.jsonl" --out "$OUT/spec" >/dev/null
SITE=$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
"$VENV/bin/python" "$HERE/score.py" "$OUT/journey.log" "$OUT/spec/openapi.yaml" "$SITE"
