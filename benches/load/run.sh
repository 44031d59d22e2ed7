#!/usr/bin/env bash
# The gateway against nginx, in one run: nginx `proxy_pass` and `terse
# gateway` (release build) in front of the same static upstream (nginx
# serving files), asked with wrk for flat rows, nested orders and
# spaced-JSON orders, as they are (pass-through, counted) and as
# `?format=toon` and `?format=compact` (each document a `[[resource]]` with
# a line template, so compact lines are rendered). nginx writes no access
# log here (`access_log off`), so the gateway writes no request lines
# either (`request_log = false`); a second gateway, logging as it does by
# default, gives one more pass-through row. The documents are static, so
# the gateway's rewrite memo answers every repeated rewrite; a third
# gateway with the memo off (`rewrite_memo_bytes = 0`) gives the rows of a
# rewrite done in full on every request, as for bodies that never repeat. Writes results.md: req/s,
# the ratio to nginx on the same document, and the format served. A bare
# hyper reverse proxy (`crates/terse-gateway/examples/bare_proxy.rs`: the
# gateway's server and client with nothing else) in front of the same
# upstream is the floor: what the gateway spends beyond it is terse's own.
#
#   benches/load/run.sh            # needs nginx and wrk on PATH (apt-get install nginx wrk)
#   DURATION=10s CONNECTIONS=32 ROUNDS=3 benches/load/run.sh   # DURATION in seconds; each row the median of ROUNDS runs
#
# Not run in CI: it measures the host it runs on.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
duration="${DURATION:-5s}"
connections="${CONNECTIONS:-32}"
threads="${THREADS:-2}"
work="$(mktemp -d)"
# nginx's workers (www-data) read the documents.
chmod 755 "$work"

# shellcheck source=tests/load/common.sh
source "$root/tests/load/common.sh"
ensure_wrk
trap 'kill $(cat "$work"/*.pid 2>/dev/null) 2>/dev/null || true; rm -rf "$work"' EXIT
command -v nginx >/dev/null || { apt-get update -qq && apt-get install -y -qq nginx >/dev/null; }
# TERSE: a binary to measure instead of a fresh release build.
terse="${TERSE:-$root/target/release/terse}"
[ -n "${TERSE:-}" ] || (cd "$root" && cargo build --release -q -p terse-bin)
# BARE: a bare proxy binary to measure instead of a fresh release build.
bare="${BARE:-$root/target/release/examples/bare_proxy}"
[ -n "${BARE:-}" ] || (cd "$root" && cargo build --release -q -p terse-gateway --example bare_proxy)
python3 "$here/documents.py" "$work/docs" 2>/dev/null
cp "$here/terse.toml" "$work/terse.toml"

upstream=$((20000 + RANDOM % 3000)) proxy=$((23000 + RANDOM % 3000)) gateway=$((26000 + RANDOM % 3000))
floor=$((29000 + RANDOM % 3000)) logging=$((32000 + RANDOM % 3000))
cold=$((35000 + RANDOM % 3000))
cat >"$work/nginx.conf" <<NGINX
worker_processes auto;
pid $work/nginx.pid;
error_log $work/error.log;
events { worker_connections 4096; }
http {
  access_log off;
  default_type application/json;
  types { application/json json; }
  upstream files { server 127.0.0.1:$upstream; keepalive 64; }
  server { listen 127.0.0.1:$upstream; root $work/docs; }
  server {
    listen 127.0.0.1:$proxy;
    location / {
      proxy_pass http://files;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
    }
  }
}
NGINX
nginx -c "$work/nginx.conf" -p "$work"
"$terse" gateway --upstream "http://127.0.0.1:$upstream" --config "$work/terse.toml" \
  --listen "127.0.0.1:$gateway" 2>"$work/gateway.log" &
echo $! >"$work/gateway.pid"
# The same gateway with its default request log, on pass-through only.
grep -v '^request_log' "$work/terse.toml" >"$work/logging.toml"
"$terse" gateway --upstream "http://127.0.0.1:$upstream" --config "$work/logging.toml" \
  --listen "127.0.0.1:$logging" 2>"$work/logging.log" &
echo $! >"$work/logging.pid"
# The same gateway with the rewrite memo off: every rewrite done in full.
{ cat "$work/terse.toml"; printf '\n[layer]\nrewrite_memo_bytes = 0\n'; } >"$work/cold.toml"
"$terse" gateway --upstream "http://127.0.0.1:$upstream" --config "$work/cold.toml" \
  --listen "127.0.0.1:$cold" 2>"$work/cold.log" &
echo $! >"$work/cold.pid"
"$bare" "127.0.0.1:$floor" "http://127.0.0.1:$upstream" >/dev/null 2>"$work/bare.log" &
echo $! >"$work/bare.pid"
for _ in $(seq 100); do
  curl -sf "http://127.0.0.1:$gateway/flat.json" >/dev/null &&
    curl -sf "http://127.0.0.1:$floor/flat.json" >/dev/null &&
    curl -sf "http://127.0.0.1:$logging/flat.json" >/dev/null &&
    curl -sf "http://127.0.0.1:$cold/flat.json" >/dev/null && break
  sleep 0.1
done
if ! curl -sf -o /dev/null "http://127.0.0.1:$upstream/$(ls "$work/docs" | head -1)"; then
  echo "the upstream does not answer:" >&2; cat "$work/error.log" >&2; exit 1
fi

# req/s of wrk against $1.
rate() {
  wrk -t"$threads" -c"$connections" -d"$duration" "$1" |
    awk '/Requests\/sec/ { printf "%.0f", $2 }'
}

# The format the gateway serves for $1 (x-response-format).
served() {
  curl -s -D - -o /dev/null "$1" | tr -d '\r' |
    awk -F': ' 'tolower($1) == "x-response-format" { print $2 }'
}

# The CPU time so far (user and system) of the process named $1 (gateway,
# bare), in clock ticks.
ticks() { awk '{ print $14 + $15 }' "/proc/$(cat "$work/$1.pid")/stat"; }
hz="$(getconf CLK_TCK)"

# wrk against $2, with the CPU the process named $1 spent per request:
# "req/s | µs".
measured() {
  local before rps
  before="$(ticks "$1")"
  rps="$(rate "$2")"
  echo "$rps | $(awk -v t="$(($(ticks "$1") - before))" -v hz="$hz" -v r="$rps" -v d="${duration%s}" \
    'BEGIN { printf "%.0f µs", t / hz * 1e6 / (r * d) }')"
}

# $1 as a share of $2, two decimals.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

# The gateway builds its exact counters' tables on a thread of its own at
# start (a few seconds of one core): measuring before it is done would take
# that core from whatever runs first. Wait until the gateway is idle.
for _ in $(seq 120); do
  idle_before="$(($(ticks gateway) + $(ticks logging) + $(ticks cold)))"
  sleep 0.5
  [ "$(($(ticks gateway) + $(ticks logging) + $(ticks cold)))" -le $((idle_before + 1)) ] && break
done

# The median of its arguments.
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# Each document's rows are measured $rounds times, round-robin (nginx,
# the bare proxy, each gateway path, then nginx again...), and each row
# shows its medians: on a shared machine one run of a row can fall in a
# busy second, and a row measured right after another can inherit its
# heat; interleaving spreads both over every row alike.
rounds="${ROUNDS:-3}"
paths=(nginx bare pass toon compact cold_toon cold_compact logging)
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
{
  echo "| document | path | served | req/s | of nginx | proxy CPU per request |"
  echo "| --- | --- | --- | ---: | ---: | ---: |"
  for doc in flat nested spaced; do
    declare -A url=(
      [nginx]="http://127.0.0.1:$proxy/$doc.json"
      [bare]="http://127.0.0.1:$floor/$doc.json"
      [pass]="http://127.0.0.1:$gateway/$doc.json"
      [toon]="http://127.0.0.1:$gateway/$doc.json?format=toon"
      [compact]="http://127.0.0.1:$gateway/$doc.json?format=compact"
      [logging]="http://127.0.0.1:$logging/$doc.json"
      [cold_toon]="http://127.0.0.1:$cold/$doc.json?format=toon"
      [cold_compact]="http://127.0.0.1:$cold/$doc.json?format=compact"
    )
    declare -A process=([bare]=bare [pass]=gateway [toon]=gateway [compact]=gateway [logging]=logging
      [cold_toon]=cold [cold_compact]=cold)
    declare -A label=(
      [bare]="bare hyper proxy" [pass]="terse \`pass-through\`" [toon]="terse \`?format=toon\`"
      [compact]="terse \`?format=compact\`" [logging]="terse \`pass-through\`, request log on"
      [cold_toon]="terse \`?format=toon\`, memo off" [cold_compact]="terse \`?format=compact\`, memo off"
    )
    declare -A format=() rates=() cpus=()
    for path in "${paths[@]:1}"; do
      # Asked once first: the first exact count loads the tokenizer.
      format[$path]="$(served "${url[$path]}")"
    done
    for _ in $(seq "$rounds"); do
      rates[nginx]+=" $(rate "${url[nginx]}")"
      for path in "${paths[@]:1}"; do
        row="$(measured "${process[$path]}" "${url[$path]}")"
        rates[$path]+=" ${row% | *}"
        cpus[$path]+=" ${row#* | }"
        cpus[$path]="${cpus[$path]% µs}"
      done
    done
    # shellcheck disable=SC2086 # the lists split on purpose
    base="$(median ${rates[nginx]})"
    echo "| $doc | nginx proxy_pass | json | $base | 1.00 | - |"
    for path in "${paths[@]:1}"; do
      # shellcheck disable=SC2086
      rps="$(median ${rates[$path]})" cpu="$(median ${cpus[$path]})"
      echo "| $doc | ${label[$path]} | ${format[$path]:-json} | $rps | $(ratio "$rps" "$base") | $cpu µs |"
    done
    unset url process label format rates cpus
  done
} | tee "$work/table.md"
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"

{
  echo "# Load bench: terse gateway against nginx proxy_pass"
  echo
  echo "\`benches/load/run.sh\` ($(date -u +%Y-%m-%d), wrk -t$threads -c$connections -d$duration,"
  echo "each row the median of $rounds runs taken in turn with the other rows of its document,"
  echo "$(nproc) cores shared by wrk, nginx, the proxies and whatever else ran: load average $load_before before"
  echo "the run, $load_after after). Documents: \`benches/load/documents.py\`. The bare hyper proxy"
  echo "is hyper and tokio with nothing else (\`crates/terse-gateway/examples/bare_proxy.rs\`). A proxy's"
  echo "CPU per request is its user and system time over the requests wrk completed. The documents"
  echo "are static, so the gateway's rewrite memo answers each repeated rewrite from memory; the rows"
  echo "with the memo off (\`rewrite_memo_bytes = 0\`) rewrite on every request, as for bodies that never repeat."
  echo
  cat "$work/table.md"
} >"$here/results.md"
echo "wrote $here/results.md"
