#!/usr/bin/env bash
# What `terse gateway` costs: throughput of a 10 KB JSON list served by
# examples/minimal (a hyper upstream), measured with wrk on loopback, each
# pair loaded at the same time in every round:
#
# - pass-through: the gateway in front of `minimal --no-layer`, no format
#   asked, against `minimal --no-layer` served directly (goal >= 0.9);
# - TOON: the gateway's `?format=toon` in front of `minimal --no-layer`
#   against `minimal`'s embedded layer's `?format=toon`.
#
# The gateway logs one line per request at info (to /dev/null here);
# GATEWAY_LOG=warn measures it without.
#
#   bash tests/load/gateway.sh                    # 5 rounds of 5 s per pair
#   ROUNDS=3 DURATION=5s bash tests/load/gateway.sh
set -euo pipefail
cd "$(dirname "$0")/../.."

DURATION=${DURATION:-5s}
CONNECTIONS=${CONNECTIONS:-32}
ROUNDS=${ROUNDS:-5}
GATEWAY_LOG=${GATEWAY_LOG:-info}
TARGET="/api/v1/events?limit=50"

# shellcheck source=tests/load/common.sh
source tests/load/common.sh
ensure_wrk

cargo build --release -q -p minimal -p terse-bin
BIN="${CARGO_TARGET_DIR:-target}/release"

start_server "listening on" "$BIN/minimal" --addr 127.0.0.1:0
EMBEDDED=$URL
start_server "listening on" "$BIN/minimal" --addr 127.0.0.1:0 --no-layer
PLAIN=$URL
start_server "listening on" env RUST_LOG="$GATEWAY_LOG" "$BIN/terse" gateway --listen 127.0.0.1:0 --upstream "$PLAIN"
GATEWAY=$URL

BYTES=$(curl -s "$PLAIN$TARGET" | wc -c)
if ! curl -s "$GATEWAY$TARGET" | cmp -s - <(curl -s "$PLAIN$TARGET"); then
    echo "the gateway's pass-through differs from the upstream's" >&2
    exit 1
fi
if ! curl -s "$GATEWAY$TARGET&format=toon" | cmp -s - <(curl -s "$EMBEDDED$TARGET&format=toon"); then
    echo "the gateway's TOON differs from the embedded layer's" >&2
    exit 1
fi
echo "body: $BYTES bytes of JSON; wrk -t1 -c$CONNECTIONS -d$DURATION, $ROUNDS rounds per pair; gateway log: $GATEWAY_LOG"

paired_load "pass-through (gateway / upstream direct, goal >= 0.9)" "$GATEWAY$TARGET" "$PLAIN$TARGET"
paired_load "TOON (gateway / embedded layer)" "$GATEWAY$TARGET&format=toon" "$EMBEDDED$TARGET&format=toon"
