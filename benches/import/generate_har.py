#!/usr/bin/env python3
"""Writes a large, realistic HAR for `ar import` benchmarks (deterministic).

    python3 generate_har.py OUT.har [--entries 50000] [--target-mb 100]

The traffic looks like a browser session on a shop: a REST API on
api.shop.test with numeric ids, UUIDs and slugs (ten resources with
identical item shapes, 7 endpoints each, plus a catalog), a GraphQL endpoint
with 4 named operations, a login form, bearer auth and session cookies, plus
static assets, HTML pages and tracker hits that a good tool leaves out: 76
true endpoints in all. JSON bodies are padded to reach the target size.
"""
import argparse
import json
import random
import uuid

RESOURCES = ["users", "orders", "products", "carts", "reviews", "addresses", "invoices", "shipments", "coupons", "stores"]
SLUG_WORDS = ["red", "blue", "green", "shoe", "hat", "scarf", "sock", "belt", "coat", "lamp", "desk", "mug"]


def iso(i):
    return f"2025-11-21T{(i // 3600) % 24:02d}:{(i // 60) % 60:02d}:{i % 60:02d}.000Z"


def item(rng, resource, ident, pad):
    return {
        "id": ident,
        "name": f"{resource[:-1]} {ident}",
        "createdAt": f"2025-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}T10:00:00Z",
        "price": round(rng.uniform(1, 500), 2),
        "tags": rng.sample(SLUG_WORDS, 3),
        "owner": {"id": rng.randint(1, 10_000), "email": f"u{rng.randint(1, 9999)}@shop.test"},
        "description": pad,
    }


def entry(i, method, url, status, req_headers, req_body, req_type, resp_body, resp_type):
    headers = [{"name": "Host", "value": url.split("/")[2]},
               {"name": "User-Agent", "value": "Mozilla/5.0 (X11; Linux x86_64) Chrome/130"},
               {"name": "Accept", "value": "application/json, text/plain, */*"}] + req_headers
    query = []
    if "?" in url:
        for pair in url.split("?", 1)[1].split("&"):
            k, _, v = pair.partition("=")
            query.append({"name": k, "value": v})
    e = {
        "startedDateTime": iso(i), "time": 20.0,
        "request": {"method": method, "url": url, "httpVersion": "HTTP/2", "headers": headers,
                    "queryString": query, "cookies": [], "headersSize": -1, "bodySize": len(req_body or "")},
        "response": {"status": status, "statusText": "OK" if status < 300 else "", "httpVersion": "HTTP/2",
                     "headers": [{"name": "content-type", "value": resp_type}], "cookies": [],
                     "content": {"size": len(resp_body), "mimeType": resp_type, "text": resp_body},
                     "redirectURL": "", "headersSize": -1, "bodySize": len(resp_body)},
        "cache": {}, "timings": {"send": 1, "wait": 15, "receive": 4},
    }
    if req_body is not None:
        e["request"]["postData"] = {"mimeType": req_type, "text": req_body}
    return e


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--entries", type=int, default=50_000)
    parser.add_argument("--target-mb", type=float, default=102)
    args = parser.parse_args()
    rng = random.Random(42)
    pad_len = int(args.target_mb * 1_000_000 / args.entries) - 900
    pad = ("lorem ipsum dolor sit amet " * (pad_len // 27 + 1))[:max(pad_len, 0)]
    auth = [{"name": "Authorization", "value": "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI0MiJ9.c2lnbmF0dXJl"},
            {"name": "Cookie", "value": "sessionid=abc123def456; theme=dark"}]
    api = "https://api.shop.test/v1"
    with open(args.out, "w") as f:
        f.write('{"log":{"version":"1.2","creator":{"name":"generate_har.py","version":"1"},"entries":[\n')
        for i in range(args.entries):
            kind = rng.random()
            res = rng.choice(RESOURCES)
            if kind < 0.04:
                e = entry(i, "GET", f"https://shop.test/static/app.{rng.randint(1, 50)}.js", 200, [], None, None, "console.log(1);", "application/javascript")
            elif kind < 0.07:
                e = entry(i, "GET", f"https://www.google-analytics.com/g/collect?v=2&tid=G-{rng.randint(1, 9)}", 204, [], None, None, "", "text/plain")
            elif kind < 0.09:
                e = entry(i, "GET", f"https://shop.test/{res}", 200, [], None, None, "<!doctype html><html><body>page</body></html>", "text/html")
            elif kind < 0.45:
                ident = rng.randint(1, 100_000)
                e = entry(i, "GET", f"{api}/{res}/{ident}", 200, auth, None, None, json.dumps(item(rng, res, ident, pad)), "application/json")
            elif kind < 0.60:
                page = rng.randint(1, 20)
                items = [item(rng, res, rng.randint(1, 100_000), pad[: len(pad) // 3]) for _ in range(3)]
                e = entry(i, "GET", f"{api}/{res}?page={page}&limit=3&sort=name", 200, auth, None, None, json.dumps({"items": items, "page": page, "total": 999}), "application/json")
            elif kind < 0.70:
                uid = str(uuid.UUID(int=rng.getrandbits(128)))
                sub = rng.choice(["items", "events", "notes"])
                e = entry(i, "GET", f"{api}/{res}/{rng.randint(1, 99_999)}/{sub}/{uid}", 200, auth, None, None,
                          json.dumps({"id": uid, "kind": sub, "at": "2025-11-21T10:00:00Z", "data": {"text": pad[: len(pad) // 2]}}), "application/json")
            elif kind < 0.78:
                slug = "-".join(rng.sample(SLUG_WORDS, 2)) + f"-{rng.randint(1, 500)}"
                e = entry(i, "GET", f"{api}/catalog/{slug}", 200, auth, None, None, json.dumps({"slug": slug, "price": rng.randint(1, 99), "stock": rng.randint(0, 9), "blurb": pad}), "application/json")
            elif kind < 0.86:
                body = json.dumps({"name": f"new {res}", "quantity": rng.randint(1, 5), "note": pad[:200]})
                created = item(rng, res, rng.randint(1, 100_000), pad)
                e = entry(i, "POST", f"{api}/{res}", 201, auth + [{"name": "Content-Type", "value": "application/json"}], body, "application/json", json.dumps(created), "application/json")
            elif kind < 0.92:
                op = rng.choice(["GetCart", "SearchProducts", "AddToCart", "Viewer"])
                q = f"{'mutation' if op == 'AddToCart' else 'query'} {op}($id: ID) {{ node(id: $id) {{ id }} }}"
                body = json.dumps({"operationName": op, "query": q, "variables": {"id": str(rng.randint(1, 999))}})
                e = entry(i, "POST", "https://api.shop.test/graphql", 200, auth + [{"name": "Content-Type", "value": "application/json"}], body, "application/json",
                          json.dumps({"data": {"node": {"id": str(rng.randint(1, 999)), "title": pad[:300]}}}), "application/json")
            elif kind < 0.96:
                body = f"email=u{rng.randint(1, 999)}%40shop.test&password=pw{rng.randint(1, 9999)}&remember=true"
                e = entry(i, "POST", "https://shop.test/account/login", 302, [{"name": "Content-Type", "value": "application/x-www-form-urlencoded"}], body,
                          "application/x-www-form-urlencoded", "", "text/plain")
            else:
                ident = rng.randint(1, 100_000)
                e = entry(i, "DELETE", f"{api}/{res}/{ident}", 204, auth, None, None, "", "application/json")
            f.write(json.dumps(e, separators=(",", ":")))
            f.write(",\n" if i + 1 < args.entries else "\n")
        f.write("]}}\n")


if __name__ == "__main__":
    main()
