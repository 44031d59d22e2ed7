#!/usr/bin/env bash
# What the layer costs a response nobody asked to rewrite: throughput of a
# 10 KB JSON list (no format requested) served by examples/minimal with the
# layer and without it (`--no-layer`), measured with wrk on loopback in one
# run, both servers under load at once. Prints requests/s of each and the
# ratio (goal: with/without >= 0.95, with plain JSON counted, as by default).
#
#   bash tests/load/passthrough.sh            # 8 rounds of 5 s per server
#   ROUNDS=1 DURATION=5s bash tests/load/passthrough.sh
set -euo pipefail
cd "$(dirname "$0")/../.."

DURATION=${DURATION:-5s}
CONNECTIONS=${CONNECTIONS:-32}
ROUNDS=${ROUNDS:-8}
TARGET="/api/v1/events?limit=50"

# shellcheck source=tests/load/common.sh
source tests/load/common.sh
ensure_wrk

cargo build --release -q -p minimal
BIN="${CARGO_TARGET_DIR:-target}/release/minimal"

start_server "listening on" "$BIN" --addr 127.0.0.1:0
WITH=$URL
start_server "listening on" "$BIN" --addr 127.0.0.1:0 --no-layer
WITHOUT=$URL

BYTES=$(curl -s "$WITH$TARGET" | wc -c)
if ! curl -s "$WITH$TARGET" | cmp -s - <(curl -s "$WITHOUT$TARGET"); then
    echo "the two servers answer differently" >&2
    exit 1
fi
echo "body: $BYTES bytes of JSON; wrk -t1 -c$CONNECTIONS -d$DURATION, $ROUNDS rounds each"

paired_load "with layer / without (goal >= 0.95)" "$WITH$TARGET" "$WITHOUT$TARGET"
