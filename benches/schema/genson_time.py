"""Times GenSON on one file: parse + add every sample + render, best of N runs.

Usage: genson_time.py FILE RUNS [MIN_SECONDS]   (prints: name<TAB>seconds<TAB>MB/s)
At least RUNS runs, and more until MIN_SECONDS (default 0) have been spent, so that small
files get as many tries as the Rust side gives them (examples/bench_inputs.rs --min-seconds).
A `.jsonl` file is one sample per line; any other file is one JSON document.
"""
import json
import os
import sys
import time

from genson import SchemaBuilder

path, runs = sys.argv[1], int(sys.argv[2])
min_seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 0.0
with open(path, "rb") as f:
    data = f.read()
text = data.decode("utf-8")
best = float("inf")
done = 0
started = time.perf_counter()
while done < runs or time.perf_counter() - started < min_seconds:
    done += 1
    start = time.perf_counter()
    builder = SchemaBuilder()
    if path.endswith(".jsonl"):
        for line in text.splitlines():
            if line.strip():
                builder.add_object(json.loads(line))
    else:
        builder.add_object(json.loads(text))
    builder.to_schema()
    best = min(best, time.perf_counter() - start)
print(f"{os.path.basename(path)}\t{best:.6f}\t{len(data) / best / 1e6:.2f}")
