"""The origins' backend (reached through each server's reverse proxy):
routes a server cannot answer by itself. Prints `ready HTTP_PORT WS_PORT`.

- /backend/chunked: a text body in three pieces, chunked, no length
- /backend/events: a text/event-stream of two events 250 ms apart
- /backend/upload: the sha256 and length of the request body
- WS_PORT: a WebSocket echo server; with `close=server` in the query it
  closes after the first echo
"""
import asyncio, hashlib, http.server, sys, threading, time
import websockets.asyncio.server


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def end_headers(self):
        # One request per connection: Caddy, reusing a kept-alive
        # connection to this server, cut 5 in 150 uploads' answers short.
        self.send_header("Connection", "close")
        self.close_connection = True
        super().end_headers()

    def pieces(self, content_type, pieces, pause):
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Cache-Control", "no-cache")
        self.send_header("X-Accel-Buffering", "no")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for i, piece in enumerate(pieces):
            if i:
                time.sleep(pause)
            self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")

    def do_GET(self):
        path = self.path.split("?")[0]
        if path == "/backend/chunked":
            self.pieces("text/plain", [b"one,", b"two,", b"three"], 0.02)
        elif path == "/backend/events":
            self.pieces("text/event-stream", [b"data: first\n\n", b"data: second\n\n"], 0.25)
        else:
            self.send_error(404)

    def do_POST(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            body = bytearray()
            while True:
                size = int(self.rfile.readline().split(b";")[0], 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b""):
                        pass
                    break
                body += self.rfile.read(size)
                self.rfile.readline()
        else:
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        answer = ("%s %d" % (hashlib.sha256(body).hexdigest(), len(body))).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)


async def echo(ws):
    async for message in ws:
        await ws.send(message)
        if "close=server" in ws.request.path:
            await ws.close()


async def main():
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    async with websockets.asyncio.server.serve(echo, "127.0.0.1", 0) as ws:
        ws_port = ws.sockets[0].getsockname()[1]
        print("ready", httpd.server_address[1], ws_port, flush=True)
        await asyncio.Event().wait()


asyncio.run(main())
