"""Do decompression and large rewrites hold the gateway's async workers?

    python3 tests/load/bomb.py [TERSE_BINARY]

Starts an upstream whose `/bomb` answers a gzip bomb (about 190 KB that
inflate to 64 MB of JSON), whose `POST /mcp` answers an MCP tool result of
8 MB of JSON, and whose `/small` answers a few bytes. Then `terse gateway`
runs in front of it three times: without heavy clients (the baseline), with
the default `offload_threshold` (reads and rewrites of large bodies off the
async workers), and with `offload_threshold` at its maximum (HTTP reads and
rewrites on the workers, as before). In the last two runs BOMBERS clients
keep asking `/bomb?format=toon` and BOMBERS more call the MCP tool asking
TOON, while one client measures `/small` for DURATION seconds. Prints
`name p50_ms p99_ms small_requests heavy_requests` per run. Outside CI:
numbers from a shared machine are for the ratio between runs.
"""

import gzip
import http.client
import http.server
import io
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time

BINARY = sys.argv[1] if len(sys.argv) > 1 else "target/debug/terse"
DURATION = float(os.environ.get("DURATION", 15))
BOMBERS = int(os.environ.get("BOMBERS", 2))
INFLATED_MB = int(os.environ.get("INFLATED_MB", 64))

row = b'{"id":1,"title":"again and again and again","done":false},'
buffer = io.BytesIO()
with gzip.GzipFile(fileobj=buffer, mode="wb", compresslevel=9) as z:
    z.write(b'{"data":[')
    chunk = row * 16384
    for _ in range(INFLATED_MB * 1024 * 1024 // len(chunk)):
        z.write(chunk)
    z.write(b'{"id":2}]}')
BOMB = buffer.getvalue()

# A large MCP tool result: 8 MB of JSON in one text block.
MCP_ROWS = [{"id": i, "title": f"Event {i}", "room": "A", "done": False} for i in range(120000)]
MCP_TEXT = __import__("json").dumps(MCP_ROWS)


class Upstream(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        if self.path.startswith("/bomb"):
            body, extra = BOMB, [("Content-Encoding", "gzip")]
        else:
            body, extra = b'{"ok":true}', []
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for name, value in extra:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        import json
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        body = json.dumps({"jsonrpc": "2.0", "id": request.get("id"), "result": {
            "content": [{"type": "text", "text": MCP_TEXT}]}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(name, threshold, bombers=BOMBERS):
    upstream = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Upstream)
    threading.Thread(target=upstream.serve_forever, daemon=True).start()
    port = free_port()
    config = tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False)
    config.write(
        f'[gateway]\nupstream = "http://127.0.0.1:{upstream.server_port}"\n'
        f'listen = "127.0.0.1:{port}"\n[layer]\nmax_body_bytes = 268435456\n'
        f"max_output_bytes = 268435456\noffload_threshold = {threshold}\n"
        f'[mcp]\npath = "/mcp"\nmax_message_bytes = 67108864\n'
    )
    config.close()
    gateway = subprocess.Popen(
        [BINARY, "gateway", "--config", config.name],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            break
        except OSError:
            time.sleep(0.05)
    stop = time.monotonic() + DURATION
    bombs = [0]

    def bomber():
        while time.monotonic() < stop:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
            c.request("GET", "/bomb?format=toon")
            c.getresponse().read()
            c.close()
            bombs[0] += 1

    call = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"big","arguments":{}}}'

    def mcp_caller():
        while time.monotonic() < stop:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
            c.request("POST", "/mcp", body=call, headers={
                "Content-Type": "application/json",
                "Accept": "application/json, text/event-stream",
                "X-Prefer-Format": "toon"})
            c.getresponse().read()
            c.close()
            bombs[0] += 1

    threads = [threading.Thread(target=bomber, daemon=True) for _ in range(bombers)]
    threads += [threading.Thread(target=mcp_caller, daemon=True) for _ in range(bombers)]
    for t in threads:
        t.start()
    time.sleep(0.5)
    latencies = []
    while time.monotonic() < stop:
        started = time.monotonic()
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        c.request("GET", "/small")
        c.getresponse().read()
        c.close()
        latencies.append((time.monotonic() - started) * 1000)
        time.sleep(0.01)
    for t in threads:
        t.join(timeout=120)
    gateway.terminate()
    gateway.wait()
    upstream.shutdown()
    os.unlink(config.name)
    latencies.sort()
    p = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))]
    print(f"{name} p50_ms={p(0.50):.1f} p99_ms={p(0.99):.1f} small_requests={len(latencies)} heavy_requests={bombs[0]}", flush=True)


print(f"bomb: {len(BOMB)} bytes gzip, {INFLATED_MB} MB inflated; {BOMBERS} bombers, {DURATION:.0f} s per run", flush=True)
run("no_bombs", 262144, bombers=0)
run("offloaded", 262144)
run("on_the_workers", 1073741824)
