"""The matrix's Python clients: urllib, requests, httpx (HTTP/1.1 or HTTP/2)
and websockets, each making every request of a cases file the way an
application would, directly or through the proxy.

Usage: client.py KIND PROXY_URL|direct CA_FILE CASES_JSON

Prints one line per request, as `fetch_cases.js` does:
`ID STATUS VERSION FIRST_MS END_MS HEX(HEADERS) HEX(BODY)` or `ID ERR HEX(MESSAGE)`;
FIRST_MS and END_MS are when the first and the last body bytes arrived. For a
WebSocket, BODY is the echo and HEADERS is `close: CODE`, the close code.
`direct` maps shop.test to 127.0.0.1 (what the proxy's `resolve` does).
"""
import asyncio
import json
import socket
import ssl
import sys
import time
import traceback

kind, proxy, ca, cases_file = sys.argv[1:5]
if proxy == "direct":
    proxy = None
    real_getaddrinfo = socket.getaddrinfo

    def getaddrinfo(host, *args, **kwargs):
        return real_getaddrinfo("127.0.0.1" if host == "shop.test" else host, *args, **kwargs)

    socket.getaddrinfo = getaddrinfo
context = ssl.create_default_context(cafile=ca)


def upload(n):
    return (b"abcdefghijklmnopqrstuvwxyz" * (n // 26 + 1))[:n]


def timed(chunks, start):
    """The body from an iterator of chunks, and when its first and last bytes came."""
    body, first = bytearray(), -1.0
    for chunk in chunks:
        if chunk and first < 0:
            first = (time.monotonic() - start) * 1000
        body += chunk
    return bytes(body), first, (time.monotonic() - start) * 1000


def with_urllib(case, start):
    import urllib.error
    import urllib.request

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    opener = urllib.request.build_opener(
        urllib.request.ProxyHandler({"https": proxy} if proxy else {}),
        urllib.request.HTTPSHandler(context=context),
        NoRedirect(),
    )
    data = upload(case["upload"]) if case["upload"] else None
    request = urllib.request.Request(
        case["url"], data=data, headers=dict(case["headers"]), method=case["method"]
    )
    error = None
    try:
        response = opener.open(request, timeout=20)
    except urllib.error.HTTPError as e:
        # Kept: the error closes its response when collected.
        error, response = e, e.fp
    chunks = iter(lambda: response.read1(65536), b"")
    body, first, end = timed(chunks, start)
    version = "HTTP/1.1" if response.version == 11 else "HTTP/1.0"
    return response.status, version, response.headers.items(), body, first, end


session = None


def with_requests(case, start):
    global session
    import requests

    if session is None:
        session = requests.Session()
        session.trust_env = False
    data = upload(case["upload"]) if case["upload"] else None
    r = session.request(
        case["method"],
        case["url"],
        headers=dict(case["headers"]),
        data=data,
        proxies={"https": proxy} if proxy else {},
        verify=ca,
        allow_redirects=False,
        stream=True,
        timeout=20,
    )
    body, first, end = timed(r.iter_content(chunk_size=None), start)
    version = "HTTP/1.1" if r.raw.version == 11 else "HTTP/1.0"
    return r.status_code, version, r.headers.items(), body, first, end


client = None


def with_httpx(case, start):
    global client
    import httpx

    if client is None:
        client = httpx.Client(
            proxy=proxy, verify=context, http2=kind == "httpx-h2", timeout=20, trust_env=False
        )
    content = upload(case["upload"]) if case["upload"] else None
    with client.stream(
        case["method"], case["url"], headers=case["headers"], content=content
    ) as r:
        body, first, end = timed(r.iter_bytes(), start)
        return r.status_code, r.http_version, r.headers.items(), body, first, end


def with_websockets(case, start):
    return asyncio.run(websockets_session(case, start))


async def websockets_session(case, start):
    # The asyncio client, not the sync one: the sync client reads on a
    # thread while its caller sends, and Python's `ssl` sockets are not safe
    # for a read and a write at once; about once in 20 connections the
    # upgrade request was never written and the client timed out.
    from websockets.asyncio.client import connect

    # The server closes (`close=server`): when this client did, nginx lost
    # its backend's Close frame about once in 15 runs.
    async with connect(case["url"], ssl=context, proxy=proxy, open_timeout=20) as ws:
        await ws.send(case["message"])
        got = await asyncio.wait_for(ws.recv(), timeout=20)
        first = (time.monotonic() - start) * 1000
        async for _ in ws:
            pass
    body = got.encode() if isinstance(got, str) else got
    headers = [("close", str(ws.close_code))]
    return 101, "HTTP/1.1", headers, body, first, (time.monotonic() - start) * 1000


fetch = {
    "urllib": with_urllib,
    "requests": with_requests,
    "httpx-h1": with_httpx,
    "httpx-h2": with_httpx,
    "websockets": with_websockets,
}[kind]
with open(cases_file) as f:
    cases = json.load(f)
for case in cases:
    start = time.monotonic()
    try:
        status, version, headers, body, first, end = fetch(case, start)
        text = "".join("%s: %s\n" % (k.lower(), v) for k, v in headers)
        line = "%s %d %s %.1f %.1f %s %s" % (
            case["id"], status, version, first, end, text.encode().hex(), body.hex()
        )
    except Exception:
        line = "%s ERR %s" % (case["id"], traceback.format_exc().encode().hex())
    print(line, flush=True)
