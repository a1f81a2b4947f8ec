#!/usr/bin/env python3
"""Held-out schema conformance: do the response schemas `ar` infers from half of
an API's traffic accept the other half's responses?

usage: holdout.py --corpus DIR --out DIR --ar BIN [--apis "a b"] [--timeout S] [--details]

For every API under CORPUS (DIR/<api>/<api>.har.gz):
  1. split the HAR's entries by index parity: even -> train, odd -> test, and
     write OUT/<api>/train.har (the same HAR with only the train entries);
  2. run `BIN import OUT/<api>/train.har --out OUT/<api>` (as spec-bench does);
  3. for every test entry with a 2xx status and a JSON body, find its operation
     in OUT/<api>/openapi.yaml (method + path template under servers[0]'s path,
     the match with the fewest parameters wins) and the response schema for its
     status (exact code, then 2XX, then default; the sample's own JSON media type,
     then application/json, then the first JSON-ish one);
  4. validate the body with openapi-schema-validator's OAS30Validator and its
     OAS 3.0 format checker (formats are asserted), and classify every error by
     the keyword that failed.
Test entries with no operation or no schema for their status are "unmatched",
not failures. The train entries are validated too, as a check on the inference
itself (the `own` column: train samples their own spec rejects).
Prints the table, writes OUT/scores.json and OUT/details.txt. Exits non-zero
only when the harness itself fails (a failing `ar` is a row with an error).
"""
import argparse
import base64
import collections
import gzip
import importlib.metadata
import json
import os
import re
import subprocess
import sys
from urllib.parse import urlsplit

import yaml
from jsonschema import Draft202012Validator, FormatChecker
from jsonschema.exceptions import best_match
from openapi_schema_validator import OAS30Validator, oas30_format_checker

METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")
KEYWORDS = ("enum", "format", "required", "type", "pattern", "additionalProperties", "minItems")
EXAMPLES_PER_API = 5
# what a run writes into OUT/<api>: the train HAR, ar's outputs and its log
RUN_FILES = ("train.har", "openapi.yaml", "openapi.json", "API.md", "tool.log")
# how a path parameter that spans several segments is documented (ar's `{path*}`)
MULTI_SEGMENT_DOC = re.compile(r"one or more (?:path )?segments|slashes included", re.I)


def yaml12_loader():
    """A PyYAML loader with YAML 1.2 (JSON) scalars, as spec-bench's score.py
    reads specs: unquoted on/off/yes/no stay strings and date-like scalars are
    not turned into timestamps (both would corrupt `enum` values)."""
    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    drop = ("tag:yaml.org,2002:bool", "tag:yaml.org,2002:timestamp")

    class Loader(base):
        yaml_implicit_resolvers = {ch: [(t, r) for t, r in rs if t not in drop]
                                   for ch, rs in base.yaml_implicit_resolvers.items()}
    Loader.add_implicit_resolver(drop[0], re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))
    return Loader


def load_spec(spec_dir):
    """The spec `ar` wrote into spec_dir: openapi.yaml, else openapi.json."""
    for name in ("openapi.yaml", "openapi.json"):
        path = os.path.join(spec_dir, name)
        if os.path.exists(path):
            with open(path, "rb") as f:
                spec = yaml.load(f, Loader=yaml12_loader())
            if not isinstance(spec, dict):
                raise ValueError(f"{name} is not a mapping")
            return spec
    raise FileNotFoundError(f"no openapi.yaml or openapi.json in {spec_dir}")


def split_har(har):
    """(train HAR, test entries): entries at even indexes train, odd ones test."""
    entries = har["log"]["entries"]
    train = dict(har, log=dict(har["log"], entries=entries[0::2]))
    return train, entries[1::2]


def run_ar(ar_bin, train_path, out_dir, timeout):
    """Run `ar import` on the train HAR, its output in out_dir/tool.log; returns
    an error message, or None when it exited 0."""
    with open(os.path.join(out_dir, "tool.log"), "wb") as log:
        try:
            rc = subprocess.run([ar_bin, "import", train_path, "--out", out_dir],
                                stdout=log, stderr=subprocess.STDOUT, timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            return f"ar timed out after {timeout}s"
    return f"ar exited {rc}" if rc else None


def deref(spec, obj, depth=0):
    """obj with local `$ref`s (#/...) followed; {} when a ref does not resolve."""
    while isinstance(obj, dict) and "$ref" in obj and depth < 50:
        ref = obj["$ref"]
        if not isinstance(ref, str) or not ref.startswith("#/"):
            return {}
        obj = spec
        for tok in ref[2:].split("/"):
            tok = tok.replace("~1", "/").replace("~0", "~")
            obj = obj.get(tok) if isinstance(obj, dict) else None
        depth += 1
    return obj if isinstance(obj, dict) else {}


def server_base_path(spec):
    """The path of servers[0]'s URL (variables at their defaults), no trailing slash."""
    servers = spec.get("servers") or [{}]
    url = servers[0].get("url") or ""
    for name, var in (servers[0].get("variables") or {}).items():
        url = url.replace("{" + name + "}", str(var.get("default", "")))
    if "://" not in url and not url.startswith(("/", "//")):
        url = "//" + url
    return urlsplit(url).path.rstrip("/")


def template_regex(base, template, multi_segment):
    """A regex for full URL paths under `base` matching `template`: each `{name}`
    matches one segment or part of one (`{id}.json`), a `{name*}` or a name in
    multi_segment matches the rest of the path, slashes included."""
    out = [re.escape(base)]
    for i, piece in enumerate(re.split(r"\{([^{}]*)\}", template)):
        if i % 2 == 0:
            out.append(re.escape(piece))
        elif piece.endswith("*") or piece in multi_segment:
            out.append(".+")
        else:
            out.append("[^/]+")
    return re.compile("".join(out) + r"\Z")


def operations(spec):
    """Every operation of the spec as a dict: method, template, regex, params
    (count of `{...}` in the template) and op (the operation object)."""
    base = server_base_path(spec)
    ops = []
    for template, item in (spec.get("paths") or {}).items():
        item = deref(spec, item)
        for method in METHODS:
            op = item.get(method)
            if not isinstance(op, dict):
                continue
            params = [deref(spec, p) for p in (item.get("parameters") or []) + (op.get("parameters") or [])]
            multi = {p.get("name") for p in params
                     if p.get("in") == "path" and MULTI_SEGMENT_DOC.search(str(p.get("description") or ""))}
            template = str(template)
            ops.append({"method": method.upper(), "template": template, "op": op,
                        "regex": template_regex(base, template, multi),
                        "params": template.count("{")})
    return ops


def match_operation(ops, method, path):
    """The operation whose template matches (method, path): fewest parameters
    first, then the most literal characters; None when none matches."""
    hits = [o for o in ops if o["method"] == method and o["regex"].match(path)]
    if not hits:
        return None
    return min(hits, key=lambda o: (o["params"], -len(re.sub(r"\{[^{}]*\}", "", o["template"]))))


def media_type(ct):
    """A content type without parameters, lower-cased."""
    return (ct or "").split(";")[0].strip().lower()


def response_schema(spec, op, status, mime):
    """(schema, "code content-type") for a response of `status` whose body is
    `mime`, or (None, why not): the response is the exact code, else 2XX, else
    default; its content is `mime`, else application/json, else the first
    JSON-ish type."""
    responses = op.get("responses") or {}
    code = str(status)
    for key in (code, code[0] + "XX", "default"):
        resp = responses.get(key, responses.get(int(key)) if key.isdigit() else None)
        if resp is None:
            continue
        content = {media_type(ct): media for ct, media in (deref(spec, resp).get("content") or {}).items()}
        preferred = [c for c in (media_type(mime), "application/json") if c in content]
        ct = next(iter(preferred + [c for c in content if "json" in c]), None)
        media = content.get(ct)
        if not isinstance(media, dict) or not isinstance(media.get("schema"), dict):
            return None, f"response {key} has no JSON schema"
        return media["schema"], f"{key} {ct}"
    return None, f"no {code} response"


def json_body(entry):
    """(True, value) for a response whose content is JSON (mimeType mentions json,
    base64 decoded, parses), else (False, None)."""
    content = entry["response"].get("content") or {}
    text = content.get("text")
    if "json" not in (content.get("mimeType") or "").lower() or text is None:
        return False, None
    try:
        if content.get("encoding") == "base64":
            text = base64.b64decode(text).decode("utf-8")
        return True, json.loads(text)
    except ValueError:  # binascii.Error and UnicodeDecodeError are ValueErrors
        return False, None


def leaf_error(error):
    """For an anyOf/oneOf error, the most relevant error inside its branches
    (jsonschema's best_match), recursively; other errors as they are."""
    while error.context:
        error = best_match(error.context)
    return error


def json_path(parts):
    """A JSONPath for an error's absolute_path: $.data[0].name, $['a b']."""
    out = "$"
    for p in parts:
        if isinstance(p, int):
            out += f"[{p}]"
        elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", p):
            out += "." + p
        else:
            out += "[" + json.dumps(p) + "]"
    return out


def truncate(text, n):
    """text cut to n characters, with an ellipsis when cut."""
    return text if len(text) <= n else text[:n - 1] + "…"


def fragment(schema):
    """The schema object that rejected a value, compact: extensions (x-ar-*) and
    the components validate() attached dropped, properties listed by name,
    nested schemas elided."""
    if not isinstance(schema, dict):
        return json.dumps(schema)
    out = {}
    for k, v in schema.items():
        if k.startswith("x-") or k == "components":
            continue
        if k == "properties" and isinstance(v, dict):
            out[k] = {name: "…" for name in v}
        elif isinstance(v, dict):
            out[k] = "{…}"
        else:
            out[k] = v
    return truncate(json.dumps(out, ensure_ascii=False), 300)


def formats_in(spec, schema, found, seen=None):
    """Add to the set `found` every `format` value in schema, $refs followed."""
    seen = set() if seen is None else seen
    if isinstance(schema, dict):
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref not in seen:
            seen.add(ref)
            formats_in(spec, deref(spec, schema), found, seen)
        if isinstance(schema.get("format"), str):
            found.add(schema["format"])
        for v in schema.values():
            formats_in(spec, v, found, seen)
    elif isinstance(schema, list):
        for v in schema:
            formats_in(spec, v, found, seen)


def format_checker():
    """openapi-schema-validator's OAS 3.0 format checker, except `time`: there
    it is JSON Schema draft 3's `hh:mm:ss` (no fraction, no offset); here it is
    RFC 3339 full-time as in JSON Schema 2020-12 (and in ar's inference)."""
    checker = FormatChecker(formats=())
    checker.checkers = dict(oas30_format_checker.checkers, time=Draft202012Validator.FORMAT_CHECKER.checkers["time"])
    return checker


FORMAT_CHECKER = format_checker()


def validate(spec, schema, body):
    """Every error of OAS30Validator (formats asserted) for body against schema;
    the schema's $refs resolve against the spec's components, which are
    attached to the root schema for that."""
    root = dict(schema, components=spec.get("components") or {})
    validator = OAS30Validator(root, format_checker=FORMAT_CHECKER)
    return [leaf_error(e) for e in validator.iter_errors(body)]


def pick_examples(failures, n):
    """Up to n distinct failures, spread out: one per keyword first, then one
    per (operation, keyword), then one per (operation, JSON path, keyword)."""
    chosen = []
    for key in (lambda f: f["keyword"], lambda f: (f["operation"], f["keyword"]),
                lambda f: (f["operation"], f["path"], f["keyword"])):
        seen = {key(f) for f in chosen}
        for f in failures:
            if len(chosen) < n and key(f) not in seen:
                chosen.append(f)
                seen.add(key(f))
    return chosen


def evaluate(spec, test_entries):
    """Validate every 2xx JSON test entry against the spec; returns the row's
    counts, its failure records, its unmatched samples (reason -> count) and
    the formats its schemas use."""
    ops = operations(spec)
    row = {"validated": 0, "failed": 0, "unmatched": 0, "by_keyword": {k: 0 for k in KEYWORDS + ("other",)},
           "by_raw_keyword": collections.Counter()}
    failures, unmatched, formats = [], collections.Counter(), set()
    for entry in test_entries:
        status = entry["response"].get("status") or 0
        is_json, body = json_body(entry)
        if not (200 <= status < 300 and is_json):
            continue
        method = entry["request"]["method"].upper()
        path = urlsplit(entry["request"]["url"]).path
        o = match_operation(ops, method, path)
        schema, where = response_schema(spec, o["op"], status, entry["response"]["content"].get("mimeType")) \
            if o else (None, "no operation")
        if schema is None:
            row["unmatched"] += 1
            unmatched[f"{method} {path} {status}: {where}"] += 1
            continue
        formats_in(spec, schema, formats)
        operation = f"{method} {o['template']} {where}"
        row["validated"] += 1
        errors = validate(spec, schema, body)
        if not errors:
            continue
        row["failed"] += 1
        first = {}
        for e in errors:
            first.setdefault(e.validator, e)
        row["by_raw_keyword"].update(first.keys())
        for cat in {kw if kw in KEYWORDS else "other" for kw in first}:
            row["by_keyword"][cat] += 1
        for kw, e in first.items():
            failures.append({"operation": operation, "url": path, "path": json_path(e.absolute_path),
                             "keyword": kw, "message": truncate(e.message, 160),
                             "value": truncate(json.dumps(e.instance, ensure_ascii=False), 80),
                             "schema": fragment(e.schema)})
    row["fail_pct"] = 100.0 * row["failed"] / row["validated"] if row["validated"] else None
    return row, failures, unmatched, formats


def run_api(api, corpus, out, ar_bin, timeout):
    """Split, import and evaluate one API; returns its row (with `examples`,
    `unmatched_examples`, `formats` and `error` when ar failed). As a check on
    the inference itself, the train entries are validated too (train_failed:
    samples the spec rejects although it was built from them)."""
    work = os.path.join(out, api)
    os.makedirs(work, exist_ok=True)
    for name in RUN_FILES:  # a previous run's, so a failing ar leaves no stale spec
        if os.path.exists(os.path.join(work, name)):
            os.remove(os.path.join(work, name))
    with gzip.open(os.path.join(corpus, api, f"{api}.har.gz"), "rt", encoding="utf-8") as f:
        har = json.load(f)
    train, test = split_har(har)
    train_path = os.path.join(work, "train.har")
    with open(train_path, "w", encoding="utf-8") as f:
        json.dump(train, f, ensure_ascii=False)
    row = {"api": api, "train": len(train["log"]["entries"]), "test": len(test), "error": None}
    err = run_ar(ar_bin, train_path, work, timeout)
    try:
        spec = load_spec(work)
        results = evaluate(spec, test), evaluate(spec, train["log"]["entries"])
    except Exception as e:  # no, unreadable or malformed spec: the tool failed, not the harness
        err = err or f"{type(e).__name__}: {e}"
        results = evaluate({}, test), evaluate({}, train["log"]["entries"])
    (counts, failures, unmatched, formats), (own, *_) = results
    if err:
        print(f"warning: {api}: {err}, see {work}/tool.log", file=sys.stderr)
        row["error"] = err
    row.update(counts)
    row["train_validated"], row["train_failed"] = own["validated"], own["failed"]
    row["examples"] = pick_examples(failures, EXAMPLES_PER_API)
    row["unmatched_examples"] = [f"{why} (x{n})" if n > 1 else why
                                 for why, n in unmatched.most_common(EXAMPLES_PER_API)]
    row["formats"] = sorted(formats)
    return row


def totals(rows):
    """The macro row (mean failure % over APIs with validated samples) and the
    micro row (sums; failed / validated)."""
    pcts = [r["fail_pct"] for r in rows if r["fail_pct"] is not None]
    micro = {"api": "MICRO", "train": sum(r["train"] for r in rows), "test": sum(r["test"] for r in rows)}
    for k in ("unmatched", "validated", "failed", "train_validated", "train_failed"):
        micro[k] = sum(r[k] for r in rows)
    micro["by_keyword"] = {k: sum(r["by_keyword"][k] for r in rows) for k in rows[0]["by_keyword"]}
    micro["by_raw_keyword"] = sum((r["by_raw_keyword"] for r in rows), collections.Counter())
    micro["fail_pct"] = 100.0 * micro["failed"] / micro["validated"] if micro["validated"] else None
    macro = {"api": "MACRO", "fail_pct": sum(pcts) / len(pcts) if pcts else None}
    return macro, micro


def print_table(rows, macro, micro, out=sys.stdout):
    """One line per API, then the macro and micro rows."""
    cols = [("enum", "enum"), ("format", "format"), ("required", "req"), ("type", "type"),
            ("pattern", "pattern"), ("additionalProperties", "addProp"), ("minItems", "minItm"), ("other", "other")]
    hdr = (f"{'api':<13} {'train':>5} {'test':>5} {'unmat':>5} {'checked':>7} {'failed':>6} {'fail%':>6} {'own':>4} "
           + " ".join(f"{short:>7}" for _, short in cols))
    print(hdr, file=out)
    print("-" * len(hdr), file=out)

    def pct(v):
        return "-" if v is None else f"{v:.1f}"

    for r in rows + [micro]:
        if r is micro:
            print("-" * len(hdr), file=out)
        print(f"{r['api']:<13} {r['train']:>5} {r['test']:>5} {r['unmatched']:>5} {r['validated']:>7} "
              f"{r['failed']:>6} {pct(r['fail_pct']):>6} {r['train_failed']:>4} "
              + " ".join(f"{r['by_keyword'][k]:>7}" for k, _ in cols)
              + (f"   [{r['error']}]" if r.get("error") else ""), file=out)
    print(f"{'MACRO':<13} {'':>5} {'':>5} {'':>5} {'':>7} {'':>6} {pct(macro['fail_pct']):>6}"
          "   (mean of the per-API fail%)", file=out)


def write_details(rows, out):
    """Per API: unmatched samples and up to EXAMPLES_PER_API failures."""
    for r in rows:
        print(f"\n## {r['api']}: {r['failed']}/{r['validated']} failed, {r['unmatched']} unmatched, "
              f"{r['train_failed']}/{r['train_validated']} train samples rejected"
              + (f" [{r['error']}]" if r["error"] else ""), file=out)
        for u in r["unmatched_examples"]:
            print(f"  unmatched  {u}", file=out)
        for f in r["examples"]:
            print(f"  - {f['operation']}  ({f['url']})\n"
                  f"      at {f['path']}  keyword: {f['keyword']}  ({f['message']})\n"
                  f"      value:  {f['value']}\n"
                  f"      schema: {f['schema']}", file=out)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", required=True, help="spec-bench's corpus directory")
    ap.add_argument("--out", required=True, help="where train HARs, specs, scores and details go")
    ap.add_argument("--ar", required=True, help="the ar binary")
    ap.add_argument("--apis", default="", help="space-separated subset of the corpus (default: all)")
    ap.add_argument("--timeout", type=float, default=300, help="seconds per `ar import`")
    ap.add_argument("--details", action="store_true", help="print details.txt after the table")
    args = ap.parse_args(argv)

    apis = sorted(d for d in os.listdir(args.corpus) if os.path.isdir(os.path.join(args.corpus, d)))
    if args.apis.split():
        unknown = set(args.apis.split()) - set(apis)
        if unknown:
            print(f"error: not in the corpus: {' '.join(sorted(unknown))}", file=sys.stderr)
            return 2
        apis = [a for a in apis if a in args.apis.split()]
    versions = ", ".join(f"{p} {importlib.metadata.version(p)}"
                         for p in ("openapi-schema-validator", "jsonschema", "PyYAML"))
    print(f"# schema-holdout: {versions}; train = even HAR entries, test = odd")
    rows = [run_api(api, args.corpus, args.out, args.ar, args.timeout) for api in apis]
    macro, micro = totals(rows)
    print_table(rows, macro, micro)

    used = sorted({f for r in rows for f in r["formats"]})
    unchecked = [f for f in used if f not in FORMAT_CHECKER.checkers]
    print(f"\nformats in the validated schemas: {', '.join(used) or '-'}; not asserted by this checker: "
          f"{', '.join(unchecked) or '-'}")
    with open(os.path.join(args.out, "scores.json"), "w") as f:
        json.dump({"rows": rows, "macro": macro, "micro": micro, "versions": versions,
                   "formats_not_asserted": unchecked}, f, indent=1, ensure_ascii=False)
    details = os.path.join(args.out, "details.txt")
    with open(details, "w", encoding="utf-8") as f:
        write_details(rows, f)
    if args.details:
        with open(details, encoding="utf-8") as f:
            sys.stdout.write(f.read())
    else:
        print(f"example failures: {details} (or --details)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
