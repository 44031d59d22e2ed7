#!/usr/bin/env bash
# Hostile clients against `terse gateway` (not run in CI): the time to shed
# 2000 silent connections, the peak RSS with 200 slow readers of ~7 MB of
# TOON each (a plain upstream serving ~15 MB of JSON), and a soak of
# slowloris + slow readers + ordinary requests (tests/load/hostile.py).
#
#   bash tests/load/hostile.sh                          # 5 min soak
#   DURATION=30 SILENT=500 READERS=50 bash tests/load/hostile.sh
#   PROFILE=debug bash tests/load/hostile.sh            # no release build
set -euo pipefail
cd "$(dirname "$0")/../.."

PROFILE=${PROFILE:-release}
HEADER_TIMEOUT=${HEADER_TIMEOUT:-5s}
SEND_TIMEOUT=${SEND_TIMEOUT:-60s}

# shellcheck source=tests/load/common.sh
source tests/load/common.sh

if [ "$PROFILE" = release ]; then
    cargo build --release -q -p terse-bin
else
    cargo build -q -p terse-bin
fi
BIN="${CARGO_TARGET_DIR:-target}/$PROFILE/terse"

WORK=$(mktemp -d)
trap 'stop_servers; rm -rf "$WORK"' EXIT

# The upstream: python's static file server, `small.json` and `big.json`
# (150 000 records of about 100 bytes: ~15 MB of JSON, ~7 MB as TOON).
python3 - "$WORK" <<'PY'
import json, sys
rows = [{"id": i, "name": f"user {i:08}", "email": f"u{i}@example.com", "active": i % 2 == 0}
        for i in range(150_000)]
open(f"{sys.argv[1]}/big.json", "w").write(json.dumps(rows))
open(f"{sys.argv[1]}/small.json", "w").write(json.dumps({"id": 1, "name": "small"}))
PY
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server "$PORT" --bind 127.0.0.1 --directory "$WORK" >/dev/null 2>&1 &
PIDS+=("$!")
UPSTREAM="http://127.0.0.1:$PORT"
for _ in $(seq 50); do
    python3 -c "import urllib.request; urllib.request.urlopen('$UPSTREAM/small.json')" 2>/dev/null && break
    sleep 0.1
done

cat >"$WORK/gateway.toml" <<TOML
[gateway]
header_read_timeout = "$HEADER_TIMEOUT"
send_timeout = "$SEND_TIMEOUT"

[layer]
max_body_bytes = 33554432
TOML
start_server "listening on" "$BIN" gateway --upstream "$UPSTREAM" --listen 127.0.0.1:0 --config "$WORK/gateway.toml"
GATEWAY_PID=${PIDS[-1]}
python3 tests/load/hostile.py "$GATEWAY_PID" "${URL#http://}"
