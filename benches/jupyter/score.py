"""Scores an `ar` spec against the operations a JupyterLab journey exercised.

Usage: score.py JOURNEY_LOG OPENAPI_YAML SITE_PACKAGES

The truth is the two documents JupyterLab's servers publish (jupyter_server's
`services/api/api.yaml`, jupyterlab_server's `rest-api.yml`), read from the
installed packages. A documented operation counts as exercised when a request
of the journey (`METHOD PATH STATUS` lines) matches its template; parameters
that hold paths or schema names span segments. Prints precision, recall and F1
over the exercised operations, then every extra and missed one.
"""
import re
import sys

import yaml

log, spec, site = sys.argv[1:4]
SPANS = ("path", "schema_name")
truth = {}
for doc in (
    f"{site}/jupyter_server/services/api/api.yaml",
    f"{site}/jupyterlab_server/rest-api.yml",
):
    for path, item in yaml.safe_load(open(doc))["paths"].items():
        path = path.rstrip("/") or "/"
        pattern = re.escape(path)
        pattern = re.sub(
            r"\\\{([^}]*)\\\}",
            lambda m: "(.+)" if m.group(1) in SPANS else "([^/]+)",
            pattern,
        )
        for method in item:
            if method in ("get", "put", "post", "delete", "patch"):
                key = (method.upper(), re.sub(r"\{[^}]*\}", "{}", path))
                truth[key] = re.compile(f"^{pattern}$")

exercised = set()
for line in open(log):
    method, path, _status = line.split()
    path = path.split("?")[0]
    hits = [key for key, rx in truth.items() if key[0] == method and rx.match(path)]
    if hits:
        # The most literal template wins (`/api/contents/{path}/checkpoints` over `{path}`).
        exercised.add(max(hits, key=lambda key: len(key[1].replace("{}", ""))))

predicted = set()
for path, item in yaml.safe_load(open(spec))["paths"].items():
    for method in item:
        if method in ("get", "put", "post", "delete", "patch"):
            predicted.add((method.upper(), re.sub(r"\{[^}]*\}", "{}", path.rstrip("/"))))

tp = predicted & exercised
p = len(tp) / len(predicted) if predicted else 0.0
r = len(tp) / len(exercised) if exercised else 0.0
f1 = 2 * p * r / (p + r) if p + r else 0.0
print(f"exercised {len(exercised)} predicted {len(predicted)} tp {len(tp)} P={p:.3f} R={r:.3f} F1={f1:.3f}")
for key in sorted(predicted - exercised):
    print("  extra ", *key)
for key in sorted(exercised - predicted):
    print("  missed", *key)
