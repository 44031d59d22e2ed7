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

PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT

# Starts the example on a free loopback port and sets URL to its base URL.
# (Not run in a command substitution: the server's pid must reach PIDS.)
start() {
    local log
    log=$(mktemp)
    "$BIN" --addr 127.0.0.1:0 "$@" >"$log" 2>&1 &
    PIDS+=("$!")
    for _ in $(seq 50); do
        if grep -q "listening on" "$log"; then
            URL=$(sed -n 's/^listening on //p' "$log")
            return
        fi
        sleep 0.1
    done
    echo "server did not start: $(cat "$log")" >&2
    exit 1
}

start
WITH=$URL
start --no-layer
WITHOUT=$URL

BYTES=$(curl -s "$WITH$TARGET" | wc -c)
if ! curl -s "$WITH$TARGET" | cmp -s - <(curl -s "$WITHOUT$TARGET"); then
    echo "the two servers answer differently" >&2
    exit 1
fi
echo "body: $BYTES bytes of JSON; wrk -t1 -c$CONNECTIONS -d$DURATION, $ROUNDS rounds each"

rps() {
    wrk -t1 -c"$CONNECTIONS" -d"$DURATION" "$1$TARGET" | awk '/^Requests\/sec:/ {print $2}'
}

# The machine may be shared, so in each round both servers are loaded at the
# same time, by one wrk each: whatever else runs slows both alike. The
# median of the per-round ratios is reported beside the ratio of the means.
RESULTS=$(mktemp)
OUT_WITH=$(mktemp)
OUT_WITHOUT=$(mktemp)
for round in $(seq "$ROUNDS"); do
    rps "$WITH" >"$OUT_WITH" &
    load_with=$!
    rps "$WITHOUT" >"$OUT_WITHOUT" &
    load_without=$!
    wait "$load_with" "$load_without"
    with=$(cat "$OUT_WITH")
    without=$(cat "$OUT_WITHOUT")
    echo "round $round: without layer $without req/s, with layer $with req/s"
    echo "$with $without" >>"$RESULTS"
done

awk '{ w += $1; wo += $2; r[NR] = $1 / $2 }
END {
    n = NR
    for (i = 2; i <= n; i++) {
        v = r[i]
        for (j = i - 1; j >= 1 && r[j] > v; j--) r[j + 1] = r[j]
        r[j + 1] = v
    }
    median = (n % 2) ? r[(n + 1) / 2] : (r[n / 2] + r[n / 2 + 1]) / 2
    printf "mean: without %.0f req/s, with %.0f req/s\n", wo / NR, w / NR
    printf "ratio with/without: %.3f of the means, %.3f median of rounds (goal >= 0.95)\n", w / wo, median
}' "$RESULTS"
