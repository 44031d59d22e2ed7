"""Python's own `http.server`, which answers HTTP/1.0 and closes every
connection, with json-server's page shape: `first`, `prev`, `next`, `last`,
`pages` and the total as `items` beside the rows in `data`. It supports
`ETag` and `If-None-Match` by hand, as such small services do, and echoes
what it was sent.

Run as `python http_server_app.py`: prints `port N` once listening, and
exits when its standard input closes.
"""

import hashlib
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

TASKS = [
    {"id": i, "title": f"Task {i}", "project": "apollo" if i % 2 else "zeus",
     "done": i % 3 == 0}
    for i in range(1, 58)
]
PER_PAGE = 10


class Handler(BaseHTTPRequestHandler):
    # The default, spelled out: HTTP/1.0, one request per connection.
    protocol_version = "HTTP/1.0"

    def answer(self, send_body):
        url = urlsplit(self.path)
        if url.path == "/tasks":
            page = int(parse_qs(url.query).get("_page", ["1"])[0])
            pages = -(-len(TASKS) // PER_PAGE)
            body = {
                "first": 1, "prev": page - 1 if page > 1 else None,
                "next": page + 1 if page < pages else None, "last": pages,
                "pages": pages, "items": len(TASKS),
                "data": TASKS[(page - 1) * PER_PAGE:page * PER_PAGE],
            }
        elif url.path == "/echo":
            body = {"query": url.query, "accept": self.headers.get("Accept"),
                    "prefer": self.headers.get("X-Prefer-Format"),
                    "host": self.headers.get("Host")}
        else:
            self.send_error(404)
            return
        data = json.dumps(body).encode()
        tag = '"' + hashlib.sha256(data).hexdigest()[:16] + '"'
        wanted = [t.strip() for t in (self.headers.get("If-None-Match") or "").split(",")]
        if tag in wanted:
            self.send_response(304)
            self.send_header("ETag", tag)
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("ETag", tag)
        self.end_headers()
        if send_body:
            self.wfile.write(data)

    def do_GET(self):
        self.answer(True)

    def do_HEAD(self):
        self.answer(False)

    def log_message(self, *args):
        pass


def watch_stdin():
    sys.stdin.read()
    os._exit(0)


if __name__ == "__main__":
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=watch_stdin, daemon=True).start()
    print(f"port {server.server_address[1]}", flush=True)
    server.serve_forever()
