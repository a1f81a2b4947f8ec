"""Times GenSON on one file: parse + add every sample + render, best of N runs.

Usage: genson_time.py FILE RUNS   (prints: name<TAB>seconds<TAB>MB/s)
A `.jsonl` file is one sample per line; any other file is one JSON document.
"""
import json
import os
import sys
import time

from genson import SchemaBuilder

path, runs = sys.argv[1], int(sys.argv[2])
with open(path, "rb") as f:
    data = f.read()
text = data.decode("utf-8")
best = float("inf")
for _ in range(runs):
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
