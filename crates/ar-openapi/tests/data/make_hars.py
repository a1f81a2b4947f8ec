#!/usr/bin/env python3
"""Writes the canned HAR files the ar-openapi golden tests read.

Run from this directory: `python3 make_hars.py`. Output is deterministic.
Each HAR covers one theme: REST ids and slugs, GraphQL, form and multipart
bodies, each kind of auth, and a HAR full of secrets that must never leak.
"""
import base64
import json

T0 = 1_763_700_000


def when(i):
    return f"2025-11-21T04:40:{i % 60:02d}.000Z"


def entry(i, method, url, status=200, req_headers=(), resp_headers=(), req_body=None, req_type=None,
          resp_body=None, resp_type="application/json", reason=None):
    headers = [{"name": n, "value": v} for n, v in req_headers]
    if req_type:
        headers.append({"name": "Content-Type", "value": req_type})
    rh = [{"name": n, "value": v} for n, v in resp_headers]
    if resp_body is not None:
        rh.append({"name": "Content-Type", "value": resp_type})
    query = []
    if "?" in url:
        for pair in url.split("?", 1)[1].split("&"):
            name, _, value = pair.partition("=")
            query.append({"name": name, "value": value})
    e = {
        "startedDateTime": when(i),
        "time": 12.5,
        "request": {
            "method": method,
            "url": url,
            "httpVersion": "HTTP/1.1",
            "headers": [{"name": "Host", "value": url.split("/")[2]},
                        {"name": "User-Agent", "value": "Mozilla/5.0"},
                        {"name": "Accept", "value": "application/json"}] + headers,
            "queryString": query,
            "cookies": [],
            "headersSize": -1,
            "bodySize": len(req_body) if isinstance(req_body, str) else -1,
        },
        "response": {
            "status": status,
            "statusText": reason or "",
            "httpVersion": "HTTP/1.1",
            "headers": rh,
            "cookies": [],
            "content": {"size": 0, "mimeType": resp_type if resp_body is not None else "x-unknown"},
            "redirectURL": "",
            "headersSize": -1,
            "bodySize": -1,
        },
        "cache": {},
        "timings": {"send": 1, "wait": 10, "receive": 1.5},
    }
    if req_body is not None:
        if isinstance(req_body, bytes):
            e["request"]["postData"] = {"mimeType": req_type, "text": req_body.decode("latin-1")}
        else:
            e["request"]["postData"] = {"mimeType": req_type, "text": req_body}
    if resp_body is not None:
        if isinstance(resp_body, bytes):
            e["response"]["content"].update(size=len(resp_body), text=base64.b64encode(resp_body).decode(), encoding="base64")
        else:
            e["response"]["content"].update(size=len(resp_body), text=resp_body)
    return e


def har(entries):
    return {"log": {"version": "1.2", "creator": {"name": "make_hars.py", "version": "1"}, "entries": entries}}


def dump(name, entries):
    with open(name, "w") as f:
        json.dump(har(entries), f, indent=1, sort_keys=True)
        f.write("\n")


j = json.dumps
API = "https://api.shop.test/api/v1"


def rest():
    users = [{"id": 42, "name": "Ada", "email": "ada@shop.test", "createdAt": "2025-01-02T10:00:00Z"},
             {"id": 43, "name": "Grace", "email": "grace@shop.test", "createdAt": "2025-01-03T11:00:00Z"}]
    orders = [{"id": "5f1c2a9e-8d7b-4c3a-9f0e-1a2b3c4d5e6f", "total": 19.99, "status": "paid"},
              {"id": "0b7e1c3d-2a4f-4e6b-8c9d-0e1f2a3b4c5d", "total": 5, "status": "open"}]
    e = []
    e.append(entry(0, "GET", "https://shop.test/", resp_body="<!doctype html><title>Shop</title>", resp_type="text/html"))
    e.append(entry(1, "GET", "https://shop.test/static/app.js", resp_body="console.log(1)", resp_type="application/javascript"))
    e.append(entry(2, "GET", "https://www.google-analytics.com/collect?v=1&tid=UA-1", status=204))
    # Response headers: what documents the API (pagination, rate limits, request ids) next to
    # what every server and CDN sends (date, caching, security policies, edge ids).
    def listing(page, remaining, request_id):
        return [("Date", "Fri, 21 Nov 2025 04:40:03 GMT"), ("Server", "nginx"), ("Cache-Control", "no-store"),
                ("Strict-Transport-Security", "max-age=63072000"), ("cf-ray", f"8e1f{page}a2b3c4d5e6f-AMS"),
                ("X-Total-Count", "2"), ("X-RateLimit-Remaining", str(remaining)), ("X-Request-Id", request_id),
                ("Link", f'<{API}/users?page={page + 1}&limit=2>; rel="next"')]
    e.append(entry(3, "GET", f"{API}/users?page=1&limit=2", resp_body=j({"items": users, "total": 2}),
                   resp_headers=listing(1, 4999, "6f1d2c3b-4a59-4687-9a0b-1c2d3e4f5a6b")))
    e.append(entry(4, "GET", f"{API}/users?page=2&limit=2", resp_body=j({"items": [], "total": 2}),
                   resp_headers=listing(2, 4998, "7a2e3d4c-5b6a-4798-8b1c-2d3e4f5a6b7c")[:-1]))
    for i, u in enumerate(users):
        e.append(entry(5 + i, "GET", f"{API}/users/{u['id']}", resp_body=j(u)))
    e.append(entry(7, "GET", f"{API}/users/me", resp_body=j({"id": 42, "name": "Ada", "role": "admin"})))
    e.append(entry(8, "GET", f"{API}/users/999", status=404, reason="Not Found", resp_body=j({"error": "not_found", "message": "no such user"})))
    for i, slug in enumerate(["red-shoes", "blue-hat", "green-scarf", "yellow-socks", "black-belt"]):
        e.append(entry(9 + i // 5, "GET", f"{API}/products/{slug}", resp_body=j({"slug": slug, "price": 10 + i, "tags": ["sale"]})))
    e.append(entry(12, "GET", f"{API}/users/42/orders", req_headers=[("X-Client-Version", "3.1.0")], resp_body=j({"items": orders})))
    for i, o in enumerate(orders):
        e.append(entry(13 + i, "GET", f"{API}/orders/{o['id']}", req_headers=[("X-Client-Version", "3.1.0")], resp_body=j(o)))
    e.append(entry(15, "POST", f"{API}/users", status=201, reason="Created", req_type="application/json",
                   resp_headers=[("Location", f"{API}/users/44")],
                   req_body=j({"name": "Linus", "email": "linus@shop.test"}),
                   resp_body=j({"id": 44, "name": "Linus", "email": "linus@shop.test", "createdAt": "2025-01-04T12:00:00Z"})))
    e.append(entry(16, "PATCH", f"{API}/users/42", req_type="application/json", req_body=j({"name": "Ada L."}),
                   resp_body=j({"id": 42, "name": "Ada L.", "email": "ada@shop.test", "createdAt": "2025-01-02T10:00:00Z"})))
    e.append(entry(17, "DELETE", f"{API}/users/43", status=204, reason="No Content"))
    dump("rest.har", e)


def graphql():
    e = []
    q_user = "query GetUser($id: ID!) { user(id: $id) { id name } }"
    q_cart = "mutation AddToCart($sku: String!, $qty: Int!) { addToCart(sku: $sku, qty: $qty) { id items { sku qty } } }"
    for i, uid in enumerate(["1", "2"]):
        e.append(entry(i, "POST", "https://shop.test/graphql", req_type="application/json",
                       req_body=j({"operationName": "GetUser", "query": q_user, "variables": {"id": uid}}),
                       resp_body=j({"data": {"user": {"id": uid, "name": "User " + uid}}})))
    e.append(entry(2, "POST", "https://shop.test/graphql", req_type="application/json",
                   req_body=j({"operationName": "AddToCart", "query": q_cart, "variables": {"sku": "RED-1", "qty": 2}}),
                   resp_body=j({"data": {"addToCart": {"id": "c1", "items": [{"sku": "RED-1", "qty": 2}]}}})))
    e.append(entry(3, "POST", "https://shop.test/graphql", req_type="application/json",
                   req_body=j({"query": "query Feed { feed { id title } }"}),
                   resp_body=j({"data": {"feed": [{"id": "p1", "title": "Hello"}]}})))
    e.append(entry(4, "GET", "https://shop.test/api/health", resp_body=j({"ok": True})))
    dump("graphql.har", e)


def forms():
    boundary = "----arBoundary7MA4YWxkTrZu0gW"
    multipart = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"caption\"\r\n\r\nBeach day\r\n"
                 f"--{boundary}\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"beach.png\"\r\n"
                 f"Content-Type: image/png\r\n\r\n\x89PNG\r\n\x1a\n\r\n--{boundary}--\r\n")
    e = []
    e.append(entry(0, "POST", "https://forms.test/login", status=302, reason="Found", req_type="application/x-www-form-urlencoded",
                   req_body="email=ada%40forms.test&password=hunter2&remember=true", resp_headers=[("Location", "/account")]))
    e.append(entry(1, "POST", "https://forms.test/search", req_type="application/x-www-form-urlencoded",
                   req_body="q=red+shoes&page=2", resp_body=j({"results": [{"id": 1, "title": "Red shoes"}], "page": 2})))
    e.append(entry(2, "POST", "https://forms.test/photos", status=201, reason="Created",
                   req_type=f"multipart/form-data; boundary={boundary}", req_body=multipart,
                   resp_body=j({"id": 7, "url": "https://forms.test/photos/7.png"})))
    e.append(entry(3, "POST", "https://forms.test/notes", req_type="text/plain", req_body="Buy milk\nand eggs",
                   resp_body="saved", resp_type="text/plain"))
    e.append(entry(4, "PUT", "https://forms.test/avatar", req_type="application/octet-stream", req_body=b"\x00\x01\x02",
                   status=204, reason="No Content"))
    e.append(entry(5, "GET", "https://forms.test/export.csv", resp_body="id,name\n1,Ada\n", resp_type="text/csv"))
    dump("forms.har", e)


def auth():
    jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI0MiJ9.c2lnbmF0dXJlLXZhbHVlLWZvci10ZXN0"
    e = []
    e.append(entry(0, "GET", "https://auth.test/me", req_headers=[("Authorization", "Bearer " + jwt)], resp_body=j({"id": 42})))
    e.append(entry(1, "GET", "https://auth.test/me", resp_body=j({"error": "unauthorized"}), status=401, reason="Unauthorized"))
    e.append(entry(2, "GET", "https://auth.test/admin/stats", req_headers=[("Authorization", "Basic YWRtaW46czNjcjN0")], resp_body=j({"users": 10, "orders": 3})))
    e.append(entry(3, "GET", "https://auth.test/partner/items", req_headers=[("X-API-Key", "pk_9f8e7d6c5b4a")], resp_body=j([{"id": 1, "sku": "A"}])))
    e.append(entry(4, "GET", "https://auth.test/maps/tiles?api_key=mk_1234abcd&z=3", resp_body=j({"tiles": 4})))
    e.append(entry(5, "GET", "https://auth.test/cart", req_headers=[("Cookie", "theme=dark; sessionid=s3ss10nv4lu3")], resp_body=j({"items": 0})))
    e.append(entry(6, "GET", "https://auth.test/public/status", resp_body=j({"up": True})))
    dump("auth.har", e)


def secrets():
    jwt = "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1c2VyLTEiLCJzY29wZSI6ImFkbWluIn0.Zm9vYmFyYmF6cXV4c2lnbmF0dXJlMTIz"
    e = []
    e.append(entry(0, "POST", "https://vault.test/oauth/token", req_type="application/x-www-form-urlencoded",
                   req_body="grant_type=client_credentials&client_id=app1&client_secret=CS-8f7e6d5c4b3a2918",
                   resp_body=j({"access_token": jwt, "refresh_token": "RT-a1b2c3d4e5f6g7h8", "expires_in": 3600, "token_type": "Bearer"}),
                   resp_headers=[("Set-Cookie", "session=SC-0a9b8c7d6e5f; Path=/; HttpOnly"),
                                 ("X-Auth-Token", "RH-5a5b5c5d5e5f"), ("X-Debug", "issued token=RHQ-0102030405")]))
    e.append(entry(1, "GET", "https://vault.test/accounts/7?access_token=QT-5e4d3c2b1a09&view=full",
                   req_headers=[("Authorization", "Bearer " + jwt), ("Cookie", "session=SC-0a9b8c7d6e5f; csrftoken=CT-77aa88bb99cc"),
                                ("X-Api-Key", "AK-1122334455667788"), ("X-CSRF-Token", "XT-9988776655443322")],
                   resp_body=j({"id": 7, "owner": "ada", "apiKey": "AKIAIOSFODNN7EXAMPLE", "stripe": "sk_live_51HxYzAbCdEfGhIjKlMnOp",
                                "note": "use ghp_abcdefghijklmnopqrstuvwxyz0123456789 for CI",
                                "password": "P@ssw0rd-Zebra-991", "embedded": "token=TK-abcdef123456"})))
    e.append(entry(2, "POST", "https://vault.test/accounts/7/keys", req_type="application/json",
                   req_headers=[("Authorization", "Bearer " + jwt)],
                   req_body=j({"label": "ci", "secret": "SK-feedfacecafebeef", "pin": 4321}),
                   resp_body=j({"id": "k1", "key": "Rk9PQkFSQkFaUVVYMTIzNDU2Nzg5MGFiY2RlZmdoaWprbA9x"})))
    e.append(entry(3, "GET", f"https://vault.test/reset/{jwt}", resp_body=j({"ok": True})))
    e.append(entry(4, "GET", "https://vault.test/files/report.pdf?X-Amz-Signature=SIG0f1e2d3c4b5a6978&X-Amz-Credential=CRED-AKIA2&X-Amz-Expires=300",
                   resp_body=b"%PDF-1.4 fake", resp_type="application/pdf"))
    e.append(entry(5, "POST", "https://vault.test/notes", req_type="text/plain",
                   req_body="password: hunter2-TextBody\napi_key=TXTKEY-31415926",
                   resp_body="stored; Authorization: Bearer TB-271828182845", resp_type="text/plain"))
    e.append(entry(6, "GET", "https://bob:UI-pass-0000@vault.test/legacy", resp_body=j({"ok": True})))
    dump("secrets.har", e)


# The strings that must never appear in any output (the secrets test reads this list).
SECRETS = [
    "CS-8f7e6d5c4b3a2918", "RT-a1b2c3d4e5f6g7h8", "SC-0a9b8c7d6e5f", "QT-5e4d3c2b1a09", "CT-77aa88bb99cc",
    "AK-1122334455667788", "XT-9988776655443322", "AKIAIOSFODNN7EXAMPLE", "sk_live_51HxYzAbCdEfGhIjKlMnOp",
    "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "P@ssw0rd-Zebra-991", "TK-abcdef123456", "SK-feedfacecafebeef",
    "4321", "Rk9PQkFSQkFaUVVYMTIzNDU2Nzg5MGFiY2RlZmdoaWprbA9x", "SIG0f1e2d3c4b5a6978", "CRED-AKIA2",
    "hunter2-TextBody", "TXTKEY-31415926", "TB-271828182845", "UI-pass-0000",
    "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9", "Zm9vYmFyYmF6cXV4c2lnbmF0dXJlMTIz", "RH-5a5b5c5d5e5f", "RHQ-0102030405",
]

if __name__ == "__main__":
    rest()
    graphql()
    forms()
    auth()
    secrets()
    with open("secrets.txt", "w") as f:
        f.write("\n".join(SECRETS) + "\n")
