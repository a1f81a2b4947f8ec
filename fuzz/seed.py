#!/usr/bin/env python3
"""Writes the seed corpora (fuzz/corpus/<target>/seed-*) from the HAR fixtures.

Run from the repository root: python3 fuzz/seed.py. The seeds are committed;
what the fuzzer adds under corpus/ is not (see fuzz/.gitignore) unless it is a
crash's regression input.
"""
import json
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent
HAR = ROOT / "fixtures" / "har"
CORPUS = ROOT / "fuzz" / "corpus"


def put(target, name, data):
    d = CORPUS / target
    d.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    (d / f"seed-{name}").write_bytes(data)


def entries(name):
    return json.loads((HAR / name).read_text(encoding="utf-8-sig", errors="replace"))["log"]["entries"]


hars = ["charles-proxyman.har", "malformed.har", "firefox-repos.har", "mitmproxy-api.har"]
for name in hars:
    put("har_import", name.removesuffix(".har"), (HAR / name).read_bytes())
# A base64 body, a torn file, an HTTP/2 relative URL.
put("har_import", "base64", json.dumps({"log": {"entries": [{
    "startedDateTime": "2026-01-01T00:00:00Z", "time": 1,
    "request": {"method": "GET", "url": "", "headers": [
        {"name": ":authority", "value": "api.test"}, {"name": ":path", "value": "/a?b=1"}]},
    "response": {"status": 200, "headers": [], "content": {
        "mimeType": "application/json", "encoding": "base64", "text": "eyJp\nZCI6N30"}}}]}}))
put("har_import", "torn", (HAR / "charles-proxyman.har").read_bytes()[:1500])

# Archive lines: HAR entries one a line, plus `_ar` lines, a torn last line.
lines = [json.dumps(e) for e in entries("charles-proxyman.har")]
ar_line = json.dumps({
    "startedDateTime": "2026-01-01T00:00:00.000Z", "time": 1.5,
    "request": {"method": "POST", "url": "https://api.test/x", "httpVersion": "HTTP/2",
                "headers": [], "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 2,
                "postData": {"mimeType": "application/json", "text": "{}"}},
    "response": {"status": 201, "statusText": "", "httpVersion": "HTTP/2", "headers": [],
                 "cookies": [], "content": {"size": 0, "mimeType": ""}, "redirectURL": "",
                 "headersSize": -1, "bodySize": 0},
    "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0},
    "_ar": {"id": 7, "started": 1767225600000000, "client": "agent"}})
put("archive_lines", "entries", "\n".join(lines) + "\n")
put("archive_lines", "ar", ar_line + "\n" + ar_line[: len(ar_line) // 2])
put("archive_lines", "corrupt", ar_line + "\n{\"log\":\n\x00\xff\n" + ar_line + "\n")

# URL sets.
for name in ["firefox-repos.har", "rest-collections.har", "mitmproxy-api.har"]:
    urls = sorted({e["request"]["url"] for e in entries(name)})
    put("templating", name.removesuffix(".har"), "\n".join(urls[:64]))
put("templating", "ids", "\n".join(
    [f"https://api.test/v1/users/{i}/orders/{i * 7}" for i in range(20)]
    + ["https://api.test/v1/users/me", "https://api.test/v1/users/me/orders/x%2Fy",
       "http://[::1]:8080/a/b?c=d", "https://api.test//double//slash/"]))

# JSON bodies, NUL-separated samples.
bodies = []
for name in ["firefox-repos.har", "mitmproxy-api.har", "chrome-shop.har"]:
    for e in entries(name):
        text = e.get("response", {}).get("content", {}).get("text")
        if text and text.lstrip().startswith(("{", "[")) and len(text) < 4000:
            bodies.append(text)
for i in range(0, min(len(bodies), 24), 4):
    put("schema", f"bodies-{i}", "\0".join(bodies[i:i + 4]))
put("schema", "edge", "\0".join([
    '{"a":1}', '{"a":1.5,"b":null}', '[1,"x",{"c":[]}]', '"2026-01-01T00:00:00Z"',
    '"ada@example.com"', '12345678901234567890123', '-0', '1e400', '{"":{"":{"":[]}}}',
    '"\\ud800"']))

# GraphQL.
put("graphql", "query", json.dumps({
    "query": "query Shop($id: ID!) { product(id: $id) { id name reviews(first: 3) { text } } }",
    "operationName": "Shop", "variables": {"id": "7"}}))
put("graphql", "mutation", json.dumps({
    "query": "mutation { addToCart(productId: 7, qty: 2) { id total } }"}))
put("graphql", "batch", json.dumps([
    {"query": "{ me { id } }"}, {"query": "subscription S { ticks }", "operationName": "S"}]))
put("graphql", "persisted", json.dumps({
    "operationName": "Feed", "variables": {},
    "extensions": {"persistedQuery": {"version": 1, "sha256Hash": "ab" * 32}}}))
put("graphql", "fragment", "fragment F on User { id } query Q { me { ...F } }")

# Forms: the first line is the multipart boundary.
put("forms", "urlencoded", "b\nname=Ada+Lovelace&tags=a&tags=b&empty=&pct=%E2%82%AC&bad=%zz")
put("forms", "multipart",
    "XyZ\r\n--XyZ\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nhello\r\n"
    "--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.json\"\r\n"
    "Content-Type: application/json\r\n\r\n{\"id\":1}\r\n--XyZ--\r\n")

# Raw request heads for the proxy.
put("proxy_head", "get", "GET http://127.0.0.1:9/x HTTP/1.1\r\nHost: 127.0.0.1:9\r\n\r\n")
put("proxy_head", "post-chunked",
    "POST http://127.0.0.1:9/x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
    "5\r\nhello\r\n0\r\n\r\n")
put("proxy_head", "connect", "CONNECT api.test:443 HTTP/1.1\r\nHost: api.test:443\r\n\r\n")
put("proxy_head", "origin-form", "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
put("proxy_head", "pipelined",
    "GET http://127.0.0.1:9/a HTTP/1.1\r\nHost: a\r\n\r\nGET http://127.0.0.1:9/b HTTP/1.0\r\n\r\n")
put("proxy_head", "smuggle",
    "POST http://127.0.0.1:9/x HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\n"
    "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /admin HTTP/1.1\r\n\r\n")
put("proxy_head", "websocket",
    "GET http://127.0.0.1:9/ws HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
