"""A WSGI application on Python's own `wsgiref` server, which names each
request header's variable as CGI does (`-` read as `_`: `X_Forwarded_For`
and `X-Forwarded-For` both become `HTTP_X_FORWARDED_FOR`).

- `/echo` answers the `HTTP_*` variables and `REMOTE_ADDR` it got.
- `/cached` answers a list with `ETag: "v1"`, and a 304 to a request whose
  `If-None-Match` holds that tag, sending `Content-Type` and
  `Content-Length` on the 304 as some servers do.

Run as `python3 wsgi_echo_app.py`: prints `port N` once listening, and
exits when its standard input closes.
"""

import json
import os
import sys
import threading
from socketserver import ThreadingMixIn
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

LIST = json.dumps({"data": [
    {"id": i, "title": f"Task {i}", "done": i % 2 == 0} for i in range(1, 11)
]}).encode()
TAG = '"v1"'


def app(environ, start_response):
    path = environ.get("PATH_INFO", "")
    if path == "/echo":
        seen = {k: v for k, v in environ.items()
                if k.startswith("HTTP_") or k == "REMOTE_ADDR"}
        body = json.dumps({"environ": seen}).encode()
        start_response("200 OK", [("Content-Type", "application/json"),
                                  ("Content-Length", str(len(body)))])
        return [body]
    if path == "/cached":
        wanted = [t.strip() for t in environ.get("HTTP_IF_NONE_MATCH", "").split(",")]
        headers = [("Content-Type", "application/json"), ("ETag", TAG),
                   ("Cache-Control", "max-age=0")]
        if TAG in wanted:
            start_response("304 Not Modified",
                           headers + [("Content-Length", str(len(LIST)))])
            return []
        start_response("200 OK", headers + [("Content-Length", str(len(LIST)))])
        return [LIST]
    start_response("404 Not Found", [("Content-Type", "text/plain")])
    return [b"not found"]


class Server(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class Quiet(WSGIRequestHandler):
    def log_message(self, *args):
        pass


def watch_stdin():
    sys.stdin.read()
    os._exit(0)


if __name__ == "__main__":
    server = make_server("127.0.0.1", 0, app, server_class=Server, handler_class=Quiet)
    threading.Thread(target=watch_stdin, daemon=True).start()
    print(f"port {server.server_address[1]}", flush=True)
    server.serve_forever()
