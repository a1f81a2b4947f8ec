#!/usr/bin/env python3
"""`ar import` next to mitmproxy2swagger, har-to-openapi and agentspec, on one HAR.

    python3 bench.py [--har FILE] [--entries 50000] [--timeout 900]

Generates the HAR with generate_har.py unless given one, runs every tool on
it one after another (same machine, same file, warm page cache), and prints
wall time, peak RSS (GNU time), the number of paths in each spec, and the
ratios to `ar`. Setup (once):

    cargo build --release -p ar-cli
    python3 -m venv benches/.venv && benches/.venv/bin/pip install -r benches/import/requirements.txt
    (cd benches/import && npm install)

Tools missing from the machine are reported as skipped, never faked.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
VENV = os.path.join(ROOT, "benches", ".venv", "bin")


def measure(cmd, timeout, cwd):
    """Runs `cmd` under GNU time; returns (seconds, peak RSS MiB, exit code, stderr tail)."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as stats:
        start = time.monotonic()
        try:
            proc = subprocess.run(["/usr/bin/time", "-v", "-o", stats.name, *cmd], cwd=cwd,
                                  capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return None, None, "timeout", ""
        elapsed = time.monotonic() - start
        text = open(stats.name).read()
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", text)
    tail = (proc.stderr or proc.stdout or "").strip().splitlines()[-3:]
    return elapsed, (int(rss.group(1)) / 1024 if rss else None), proc.returncode, " | ".join(tail)


def count_paths(spec_path):
    if not spec_path or not os.path.exists(spec_path):
        return None
    text = open(spec_path, errors="replace").read()
    if spec_path.endswith(".json"):
        import json
        try:
            return len(json.loads(text).get("paths", {}))
        except ValueError:
            return None
    in_paths, count = False, 0
    for line in text.splitlines():
        if re.match(r"^paths:", line):
            in_paths = True
            continue
        if in_paths and re.match(r"^\S", line):
            break
        if in_paths and re.match(r"^  ['\"]?/", line):
            count += 1
    return count


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--har")
    parser.add_argument("--entries", type=int, default=50_000)
    parser.add_argument("--timeout", type=int, default=900)
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="ar-bench-import-")
    har = args.har or os.path.join(work, "bench.har")
    if not args.har:
        subprocess.run([sys.executable, os.path.join(HERE, "generate_har.py"), har, "--entries", str(args.entries)], check=True)
    size_mb = os.path.getsize(har) / 1e6
    print(f"HAR: {har} ({size_mb:.1f} MB, {args.entries} entries); cores: {os.cpu_count()}")

    ar_bin = os.environ.get("AR_BIN", os.path.join(ROOT, "target", "release", "ar"))
    m2s = os.path.join(VENV, "mitmproxy2swagger")
    agentspec = os.path.join(VENV, "agentspec")
    h2o = os.path.join(HERE, "node_modules", ".bin", "har-to-openapi")
    results = []

    def run(name, cmd, spec, exe):
        if not os.path.exists(exe):
            results.append((name, None, None, f"skipped: {exe} not installed", None))
            return
        seconds, rss, code, tail = measure(cmd, args.timeout, work)
        note = "ok" if code == 0 else f"exit {code}: {tail}"
        results.append((name, seconds, rss, note, count_paths(spec)))

    out = os.path.join(work, "ar")
    run("ar import", [ar_bin, "import", har, "--out", out], os.path.join(out, "openapi.yaml"), ar_bin)

    h2o_spec = os.path.join(work, "har-to-openapi.yaml")
    run("har-to-openapi 3.0.1", ["node", h2o, har, "-o", h2o_spec], h2o_spec, h2o)

    agent_out = os.path.join(work, "agentspec")
    run("agentspec 0.3.1", [agentspec, "capture", "--har", har, "--out", agent_out], None, agentspec)
    if os.path.isdir(agent_out):
        specs = [os.path.join(d, f) for d, _, fs in os.walk(agent_out) for f in fs if "openapi" in f]
        if specs:
            name, s, r, n, _ = results[-1]
            results[-1] = (name, s, r, n, count_paths(sorted(specs)[0]))

    # mitmproxy2swagger's documented workflow is two passes: the first lists path
    # templates as `ignore:...`, the user un-ignores them, the second builds the spec.
    m2s_spec = os.path.join(work, "mitmproxy2swagger.yaml")
    prefix = "https://api.shop.test/v1"
    if os.path.exists(m2s):
        first = measure([m2s, "-i", har, "-o", m2s_spec, "-p", prefix, "-f", "har"], args.timeout, work)
        if first[2] == 0 and os.path.exists(m2s_spec):
            text = open(m2s_spec).read().replace("- ignore:/", "- /")
            open(m2s_spec, "w").write(text)
            second = measure([m2s, "-i", har, "-o", m2s_spec, "-p", prefix, "-f", "har"], args.timeout, work)
            seconds = first[0] + second[0] if second[0] is not None else None
            rss = max(first[1] or 0, second[1] or 0)
            note = "ok (2 passes)" if second[2] == 0 else f"pass 2 exit {second[2]}: {second[3]}"
            results.append(("mitmproxy2swagger 0.14.0", seconds, rss, note, count_paths(m2s_spec)))
        else:
            results.append(("mitmproxy2swagger 0.14.0", first[0], first[1], f"exit {first[2]}: {first[3]}", None))
    else:
        results.append(("mitmproxy2swagger 0.14.0", None, None, f"skipped: {m2s} not installed", None))

    base = results[0]
    print(f"\n{'tool':<26} {'time s':>8} {'peak RSS MiB':>13} {'paths':>6} {'time vs ar':>11} {'RSS vs ar':>10}  note")
    for name, seconds, rss, note, paths in results:
        t = f"{seconds:.2f}" if seconds is not None else "-"
        r = f"{rss:.0f}" if rss is not None else "-"
        tr = f"{seconds / base[1]:.1f}x" if seconds and base[1] else "-"
        rr = f"{rss / base[2]:.1f}x" if rss and base[2] else "-"
        p = str(paths) if paths is not None else "-"
        print(f"{name:<26} {t:>8} {r:>13} {p:>6} {tr:>11} {rr:>10}  {note}")
    if os.environ.get("KEEP") != "1":
        shutil.rmtree(work, ignore_errors=True)
    else:
        print(f"outputs kept in {work}")


if __name__ == "__main__":
    main()
