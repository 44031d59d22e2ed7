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

cargo build --release -q -p minimal -p terse-cli
BIN="${CARGO_TARGET_DIR:-target}/release"

PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT

# Runs a server on a free loopback port and sets URL to its base URL, read
# from the first line matching `pattern` it prints.
start() {
    local pattern="$1" log
    shift
    log=$(mktemp)
    "$@" >"$log" 2>/dev/null &
    PIDS+=("$!")
    for _ in $(seq 50); do
        URL=$(grep -o "$pattern http://[0-9.:]*" "$log" | head -n1 | sed 's/.* //' || true)
        if [ -n "$URL" ]; then
            return
        fi
        sleep 0.1
    done
    echo "server did not start: $(cat "$log")" >&2
    exit 1
}

start "listening on" "$BIN/minimal" --addr 127.0.0.1:0
EMBEDDED=$URL
start "listening on" "$BIN/minimal" --addr 127.0.0.1:0 --no-layer
PLAIN=$URL
start "listening on" env RUST_LOG="$GATEWAY_LOG" "$BIN/terse" gateway --listen 127.0.0.1:0 --upstream "$PLAIN"
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

rps() {
    wrk -t1 -c"$CONNECTIONS" -d"$DURATION" "$1" | awk '/^Requests\/sec:/ {print $2}'
}

# Loads `$1` and `$2` at once for $ROUNDS rounds; prints the ratio $1/$2.
pair() {
    local label="$1" a="$2" b="$3" results out_a out_b
    results=$(mktemp)
    out_a=$(mktemp)
    out_b=$(mktemp)
    for round in $(seq "$ROUNDS"); do
        rps "$a" >"$out_a" &
        local load_a=$!
        rps "$b" >"$out_b" &
        local load_b=$!
        wait "$load_a" "$load_b"
        echo "$label round $round: $(cat "$out_a") vs $(cat "$out_b") req/s"
        echo "$(cat "$out_a") $(cat "$out_b")" >>"$results"
    done
    awk -v label="$label" '{ a += $1; b += $2; r[NR] = $1 / $2 }
    END {
        n = NR
        for (i = 2; i <= n; i++) {
            v = r[i]
            for (j = i - 1; j >= 1 && r[j] > v; j--) r[j + 1] = r[j]
            r[j + 1] = v
        }
        median = (n % 2) ? r[(n + 1) / 2] : (r[n / 2] + r[n / 2 + 1]) / 2
        printf "%s: %.0f vs %.0f req/s; ratio %.3f of the means, %.3f median of rounds\n", label, a / n, b / n, a / b, median
    }' "$results"
}

pair "pass-through (gateway / upstream direct, goal >= 0.9)" "$GATEWAY$TARGET" "$PLAIN$TARGET"
pair "TOON (gateway / embedded layer)" "$GATEWAY$TARGET&format=toon" "$EMBEDDED$TARGET&format=toon"
