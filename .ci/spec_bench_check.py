#!/usr/bin/env python3
"""Compare a spec-bench run (scores.json) with the figures recorded in
.ci/spec-bench.json; with --record, rewrite that file from the run instead.

usage: spec_bench_check.py SCORES.json RECORD.json [--record]

Python standard library only. Run through .ci/spec-bench-check, which runs
the benchmark first.

Fails (exit 1) when
  - the macro F1 is more than `f1_tolerance` (0.01) below the recorded one, or
  - fewer specs are valid than the recorded floor `valid_min`, or
  - an API whose spec was valid in the record is now invalid (a new invalid
    spec is a regression even when a fix elsewhere keeps the count level).
Per-API F1 drops are shown and named (biggest first), but only the macro F1
fails the check.
Exit 2: the input files are missing or malformed.
"""
import json
import sys

NOTE = ("Recorded spec-bench figures, checked by .ci/spec-bench-check in CI. "
        "Goal: every spec valid (valid_min == the number of APIs) and F1 only going up. "
        "valid_min is the floor, not the goal: raise it, and f1, as fixes land, with "
        "`.ci/spec-bench-check --record` (then commit this file).")
DEFAULT_TOLERANCE = 0.01


def die(msg, code=2):
    print(f"spec-bench-check: error: {msg}", file=sys.stderr)
    sys.exit(code)


def load(path, what):
    try:
        with open(path) as f:
            return json.load(f)
    except FileNotFoundError:
        die(f"{what} not found: {path}")
    except ValueError as e:
        die(f"{what} is not valid JSON: {path}: {e}")


def current(scores_path):
    """Per-API {f1, valid} and the macro figures from score.py's --json output."""
    s = load(scores_path, "scores")
    try:
        apis = {}
        for r in s["rows"]:
            apis[r["api"]] = {
                "f1": round(float(r["f1"]), 3),
                # None means the validator could not say (spec missing or unreadable): not valid.
                "valid": r.get("valid") is True,
                "why": r.get("invalid_why") or r.get("error") or "",
            }
        macro_f1 = round(float(s["macro"]["f1"]), 3)
    except (KeyError, TypeError, ValueError) as e:
        die(f"unexpected scores.json layout in {scores_path}: {e!r}")
    if not apis:
        die(f"no APIs in {scores_path}")
    return {"f1": macro_f1, "valid": sum(a["valid"] for a in apis.values()), "apis": apis}


def record(now, record_path, old):
    doc = {
        "note": NOTE,
        "f1_tolerance": (old or {}).get("f1_tolerance", DEFAULT_TOLERANCE),
        "f1": now["f1"],
        "valid_min": now["valid"],
        "apis_total": len(now["apis"]),
        "apis": {name: {"f1": a["f1"], "valid": a["valid"]}
                 for name, a in sorted(now["apis"].items())},
    }
    # One API per line, so a raised figure is a one-line diff.
    lines = ["{"]
    for k in ("note", "f1_tolerance", "f1", "valid_min", "apis_total"):
        lines.append(f"  {json.dumps(k)}: {json.dumps(doc[k])},")
    lines.append('  "apis": {')
    items = list(doc["apis"].items())
    for i, (name, a) in enumerate(items):
        comma = "," if i < len(items) - 1 else ""
        lines.append(f"    {json.dumps(name)}: {json.dumps(a)}{comma}")
    lines.append("  }")
    lines.append("}")
    with open(record_path, "w") as f:
        f.write("\n".join(lines) + "\n")
    json.loads("\n".join(lines))  # what we wrote must read back


def yn(v):
    return "-" if v is None else ("yes" if v else "no")


def f3(v):
    return "-" if v is None else f"{v:.3f}"


def main(argv):
    args = [a for a in argv if a != "--record"]
    do_record = len(args) != len(argv)
    if len(args) != 2:
        die("usage: spec_bench_check.py SCORES.json RECORD.json [--record]")
    scores_path, record_path = args
    now = current(scores_path)

    if do_record:
        try:
            with open(record_path) as f:
                old = json.load(f)
        except (FileNotFoundError, ValueError):
            old = None
    else:
        old = load(record_path, "recorded figures")
    rec_apis = (old or {}).get("apis", {})
    try:
        tol = float((old or {}).get("f1_tolerance", DEFAULT_TOLERANCE))
        rec_f1 = None if old is None else float(old["f1"])
        rec_valid = None if old is None else int(old["valid_min"])
    except (KeyError, TypeError, ValueError) as e:
        die(f"unexpected layout in {record_path}: {e!r}")

    # The table: recorded vs now, per API, then the macro row.
    fell_f1, fell_valid, notes = [], [], []
    print(f"{'api':<14}{'F1 rec':>8}{'F1 now':>8}{'delta':>8}  {'valid rec':>9}{'now':>5}  notes")
    print("-" * 64)
    for name in sorted(set(rec_apis) | set(now["apis"])):
        r, n = rec_apis.get(name), now["apis"].get(name)
        rf = None if r is None else float(r["f1"])
        rv = None if r is None else bool(r["valid"])
        nf = None if n is None else n["f1"]
        nv = None if n is None else n["valid"]
        flag = []
        if rf is not None and nf is not None:
            delta = round(nf - rf, 3)
            if delta < 0:
                flag.append("F1 fell")
                fell_f1.append((name, rf, nf))
            elif delta > 0:
                flag.append("F1 up")
        else:
            delta = None
        if rv and nv is False:
            flag.append("now invalid")
            fell_valid.append((name, n["why"]))
        elif rv is False and nv:
            flag.append("now valid")
        if r is None and old is not None:
            flag.append("not in record")
        if n is None:
            flag.append("not in this run")
            notes.append(f"{name} is in the record but not in this run")
        d = "-" if delta is None else ("=" if delta == 0 else f"{delta:+.3f}")
        print(f"{name:<14}{f3(rf):>8}{f3(nf):>8}{d:>8}  {yn(rv):>9}{yn(nv):>5}  {', '.join(flag)}".rstrip())
    print("-" * 64)
    total = len(now["apis"])
    rv_s = "-" if rec_valid is None else f"{rec_valid}/{old.get('apis_total', total)}"
    md = "-" if rec_f1 is None else round(now["f1"] - rec_f1, 3)
    md = "=" if md == 0 else (md if isinstance(md, str) else f"{md:+.3f}")
    print(f"{'MACRO':<14}{f3(rec_f1):>8}{f3(now['f1']):>8}{md:>8}  {rv_s:>9}{now['valid']:>3}/{total}")
    print()

    if do_record:
        record(now, record_path, old)
        print(f"recorded: macro F1 {now['f1']:.3f}, valid floor {now['valid']}/{total} -> {record_path}")
        if rec_f1 is not None and (now["f1"] < rec_f1 or now["valid"] < rec_valid):
            print("warning: this lowers the recorded figures; commit it only if that is intended",
                  file=sys.stderr)
        if now["valid"] < total:
            print(f"goal: {total}/{total} valid; {total - now['valid']} spec(s) still invalid")
        return 0

    failures = []
    if round(rec_f1 - now["f1"], 3) > tol:
        fell_f1.sort(key=lambda x: x[2] - x[1])
        why = "; ".join(f"{a} F1 recorded {rf:.3f}, now {nf:.3f}" for a, rf, nf in fell_f1)
        failures.append(
            f"macro F1 fell: recorded {rec_f1:.3f}, now {now['f1']:.3f} "
            f"(more than {tol} below)" + (f"; APIs that fell: {why}" if why else ""))
    if now["valid"] < rec_valid:
        failures.append(f"valid specs fell below the floor: recorded {rec_valid}/{total}, "
                        f"now {now['valid']}/{total}")
    for a, why in fell_valid:
        failures.append(f"{a} spec valid: recorded yes, now no ({why[:300]})")
    if not failures:
        for a, rf, nf in fell_f1:
            notes.append(f"{a} F1 recorded {rf:.3f}, now {nf:.3f} (macro still within {tol})")
    for n in notes:
        print(f"note: {n}")
    sys.stdout.flush()
    if failures:
        print("spec-bench-check: FAIL", file=sys.stderr)
        for f in failures:
            print(f"  - {f}", file=sys.stderr)
        print("(if a drop is intended, record the new figures: .ci/spec-bench-check --record)",
              file=sys.stderr)
        return 1
    print(f"spec-bench-check: ok: macro F1 {now['f1']:.3f} (recorded {rec_f1:.3f}, "
          f"tolerance {tol}), valid {now['valid']}/{total} (floor {rec_valid}; goal {total}/{total})")
    if now["f1"] > rec_f1 or now["valid"] > rec_valid:
        print("  figures rose: raise the record with .ci/spec-bench-check --record and commit it")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
