#!/usr/bin/env bash
# Pass-through under callgrind: the instructions `terse gateway` spends on a
# plain JSON GET (no `?format`, the answer passed on with its
# X-Token-Count), against the bare hyper proxy's
# (`crates/terse-gateway/examples/bare_proxy.rs`), both release builds in
# front of the same static upstream (a keep-alive HTTP/1.1 server in
# Python that serves `benches/load/documents.py`'s documents from memory),
# asked as wrk asks in the load bench (no Accept-Encoding).
#
# Each proxy runs under `valgrind --tool=callgrind`; a client (Python's
# http.client, one keep-alive connection) makes WARMUP GETs, then the
# counters are zeroed and it makes REQUESTS GETs, dumps, makes 2 x REQUESTS
# more and dumps again. Callgrind acts on a request to zero or dump when the
# process next runs, so a window's edges can cut a request: the table gives
# each window's instructions per request and the marginal cost, (window of
# 2N - window of N) / N, in which those edges cancel but whatever runs on
# a timer (tokio's, the gateway's memory trim) weighs double. The ratio is
# taken both ways. Runs of one build differ by 2-3% (more for the
# marginal): compare builds on a few runs each, or a larger REQUESTS. The gateway runs with the load
# bench's config (`request_log = false`, the three `[[resource]]`s) and is
# measured once its exact counters' tables are built (the "ready" line).
# Instruction counts barely depend on the machine's load, unlike req/s: a
# change's effect shows in one run.
#
#   benches/load/callgrind_passthrough.sh                   # nested.json, 200 requests
#   DOC=flat REQUESTS=400 benches/load/callgrind_passthrough.sh
#   TERSE=path/to/terse BARE=path/to/bare_proxy benches/load/callgrind_passthrough.sh
#   KEEP=1 ...   # keeps the callgrind files (printed) for callgrind_annotate
#
# Builds with cargo into $CARGO_TARGET_DIR (default target/) unless TERSE
# and BARE name binaries. Needs valgrind and python3. Takes a few minutes:
# the gateway's tables are built under callgrind first.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
doc="${DOC:-nested}"
requests="${REQUESTS:-200}"
warmup="${WARMUP:-20}"
target="${CARGO_TARGET_DIR:-$root/target}"
command -v valgrind >/dev/null || { apt-get update -qq && apt-get install -y -qq valgrind >/dev/null; }

terse="${TERSE:-$target/release/terse}"
[ -n "${TERSE:-}" ] || (cd "$root" && cargo build --release -q -p terse-bin)
bare="${BARE:-$target/release/examples/bare_proxy}"
[ -n "${BARE:-}" ] || (cd "$root" && cargo build --release -q -p terse-gateway --example bare_proxy)

# shellcheck source=tests/load/common.sh
source "$root/tests/load/common.sh"
work="$(mktemp -d)"
cleanup() {
  stop_servers
  if [ -n "${KEEP:-}" ]; then echo "callgrind files kept in $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
python3 "$here/documents.py" "$work/docs" 2>/dev/null

# The upstream: every document from memory, keep-alive, Content-Length.
cat >"$work/upstream.py" <<'PY'
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

docs = {"/" + p.name: p.read_bytes() for p in Path(sys.argv[1]).glob("*.json")}

class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        body = docs.get(self.path.split("?")[0])
        if body is None:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass

server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(f"upstream on http://127.0.0.1:{server.server_address[1]}", flush=True)
server.serve_forever()
PY

# The client: WARMUP GETs, zero, N GETs, dump, 2N GETs, dump; every answer
# read whole and checked (200, the document's length, X-Token-Count where
# asked for).
cat >"$work/client.py" <<'PY'
import http.client, subprocess, sys
from pathlib import Path

addr, path, pid, warmup, n, want_count = sys.argv[1:7]
warmup, n = int(warmup), int(n)
size = len(Path(sys.argv[7]).read_bytes())
host, port = addr.rsplit(":", 1)
conn = http.client.HTTPConnection(host, int(port), timeout=600)

def get(count):
    for _ in range(count):
        # As wrk asks: no Accept-Encoding (http.client adds "identity").
        conn.putrequest("GET", path, skip_accept_encoding=True)
        conn.endheaders()
        response = conn.getresponse()
        body = response.read()
        assert response.status == 200, response.status
        assert len(body) == size, (len(body), size)
        if want_count == "1":
            assert response.getheader("x-token-count"), response.getheaders()

def control(flag):
    subprocess.run(["callgrind_control", flag, pid], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

get(warmup)
control("-z")
get(n)
control("-d")
get(2 * n)
control("-d")
PY

start_server "upstream on" python3 "$work/upstream.py" "$work/docs"
upstream_addr="${URL#http://}"
cp "$here/terse.toml" "$work/terse.toml"

# NAME COUNTED PATTERN COMMAND...: the marginal instructions per request of
# COMMAND under callgrind.
measure() {
  local name="$1" counted="$2" pattern="$3" pid one two
  shift 3
  START_TRIES=1200 start_server "$pattern" \
    valgrind --tool=callgrind --callgrind-out-file="$work/$name.cg.%p" "$@"
  pid="${PIDS[-1]}"
  if [ "$name" = gateway ]; then
    for _ in $(seq 3000); do
      grep -q "exact token counters ready" "$SERVER_ERR" && break
      sleep 0.1
    done
  fi
  python3 "$work/client.py" "${URL#http://}" "/$doc.json" "$pid" "$warmup" "$requests" "$counted" \
    "$work/docs/$doc.json"
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  # The client's two dumps, in order (the exit's has no suffix).
  mapfile -t dumps < <(ls "$work/$name.cg.$pid".* | sort -V | head -n2)
  one="$(awk '/^summary:/ { print $2 }' "${dumps[0]}")"
  two="$(awk '/^summary:/ { print $2 }' "${dumps[1]}")"
  printf '%s\t%d\t%d\t%d\n' "$name" "$((one / requests))" "$((two / (2 * requests)))" \
    "$(((two - one) / requests))"
  [ -z "${KEEP:-}" ] || echo "$name: ${dumps[1]}" >&2
}

{
  printf 'proxy\tIr/req (N)\tIr/req (2N)\tmarginal Ir/req\n'
  measure bare 0 "bare proxy listening on" "$bare" 127.0.0.1:0 "http://$upstream_addr"
  measure gateway 1 "terse gateway listening on" "$terse" gateway --upstream "http://$upstream_addr" \
    --config "$work/terse.toml" --listen 127.0.0.1:0
} | tee "$work/table"
awk -F'\t' 'NR == 2 { b = $3; bm = $4 } NR == 3 { g = $3; gm = $4 }
  END { printf "gateway / bare: %.2f (2N window), %.2f (marginal); %s, N = %d\n", g / b, gm / bm, doc, n }' \
  doc="$doc.json" n="$requests" "$work/table"
