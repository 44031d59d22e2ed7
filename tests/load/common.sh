# Sourced by the load scripts: wrk from Debian's packages when it is missing,
# servers started in the background, and paired wrk runs.
ensure_wrk() {
    if ! command -v wrk >/dev/null 2>&1; then
        apt-get update -qq && apt-get install -y -qq wrk >/dev/null
    fi
}

# Servers started by `start_server`, stopped when the script exits.
PIDS=()
stop_servers() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
}
trap stop_servers EXIT

# start_server PATTERN COMMAND...: runs COMMAND (which listens on a free
# loopback port) in the background and sets URL to the first
# `PATTERN http://...` address it prints, and SERVER_ERR to the file its
# stderr goes to; waits START_TRIES tenths of a second for it (default 50:
# a server under valgrind takes longer). Not to be run in a command
# substitution: the server's pid must reach PIDS (the last one there).
start_server() {
    local pattern="$1" log
    shift
    log=$(mktemp)
    SERVER_ERR="$log.err"
    "$@" >"$log" 2>"$SERVER_ERR" &
    PIDS+=("$!")
    for _ in $(seq "${START_TRIES:-50}"); do
        URL=$(grep -o "$pattern http://[0-9.:]*" "$log" | head -n1 | sed 's/.* //' || true)
        if [ -n "$URL" ]; then
            return
        fi
        sleep 0.1
    done
    echo "server did not start: $(cat "$log" "$SERVER_ERR")" >&2
    exit 1
}

# paired_load LABEL URL_A URL_B: $ROUNDS rounds in which one wrk each
# (-t1 -c$CONNECTIONS -d$DURATION) loads A and B at the same time, so that
# whatever else runs on a shared machine slows both alike; prints each
# round, then A/B as the ratio of the means and the median of the rounds.
paired_load() {
    local label="$1" a="$2" b="$3" results out_a out_b load_a load_b
    results=$(mktemp)
    out_a=$(mktemp)
    out_b=$(mktemp)
    for round in $(seq "$ROUNDS"); do
        wrk -t1 -c"$CONNECTIONS" -d"$DURATION" "$a" | awk '/^Requests\/sec:/ {print $2}' >"$out_a" &
        load_a=$!
        wrk -t1 -c"$CONNECTIONS" -d"$DURATION" "$b" | awk '/^Requests\/sec:/ {print $2}' >"$out_b" &
        load_b=$!
        wait "$load_a" "$load_b"
        echo "$label, round $round: $(cat "$out_a") vs $(cat "$out_b") req/s"
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
        printf "%s: mean %.0f vs %.0f req/s; ratio %.3f of the means, %.3f median of rounds\n", label, a / n, b / n, a / b, median
    }' "$results"
}
