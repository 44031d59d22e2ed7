#!/usr/bin/env bash
# Writes the seeds of the layer's fuzz targets under $1/request,
# $1/service, $1/mcp and $1/template, and copies in the inputs of regressions/<target>/ so that every
# run replays them first. Called by .ci/fuzz; byte 0 of a seed picks the
# target's options (see fuzz_targets/*.rs).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
corpus="$here/../../../tests/corpus"
out="$1"
rm -rf "$out/request" "$out/service"
mkdir -p "$out/request" "$out/service"

queries=(
  "" "format=toon" "format=compact" "format=json" "format=TOON&fields=id,title"
  "fields=owner.name,title" "fields=owner.team.name" "fields=a..b" "format=compact&fields=id"
  "fields=a.b.c.d.e,f,g,h" "format=csv" "format=toon&fields=%74itle,room" "fields=&format="
  "format=toon&format=json" "fields=id,title,room,owner.email,tags"
)
headers=(
  "" "accept:text/toon" "accept:application/json;q=0.9, text/toon;q=0.5"
  "x-prefer-format:compact" $'x-prefer-format:toon\nx-prefer-format:json'
  $'accept:application/toon;q=0\naccept:*/*' $'x-junk:\xff\xfe\naccept:text/toon;q=abc'
)

# request: choice byte, query, then header lines.
n=0
for query in "${queries[@]}"; do
  for choice in '\000' '\042' '\113' '\154' '\371'; do
    header="${headers[$((n % ${#headers[@]}))]}"
    { printf "$choice"; printf '%s' "$query"; [ -n "$header" ] && printf '\n%s' "$header"; } \
      >"$out/request/seed-$n"
    n=$((n + 1))
  done
done

# service: choice byte, frame size byte, query, newline, the body: each JSON
# file of the corpus whole, and cut to a few records so it fits the target's
# small body limit and is rewritten.
python3 - "$corpus" "$out/service" <<'PY'
import json, pathlib, sys
corpus, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
queries = [b"format=toon", b"format=compact", b"fields=id,name", b"format=toon&fields=id,title,meta"]
choices = [b"\x00\x00", b"\x05\x80", b"\x82\x07", b"\x13\x20", b"\x48\x00"]

def shrink(value):
    if isinstance(value, list):
        return [shrink(item) for item in value[:3]]
    if isinstance(value, dict):
        return {key: shrink(item) for key, item in value.items()}
    return value

count = 0
for path in sorted(corpus.glob("*.json")):
    text = path.read_bytes()
    small = json.dumps(shrink(json.loads(text)), ensure_ascii=False).encode("utf-8")
    for i, body in enumerate([text, small]):
        for j, query in enumerate(queries):
            choice = choices[(count + j) % len(choices)]
            (out / f"{path.stem}-{i}-{j}").write_bytes(choice + query + b"\n" + body)
        count += 1
print(f"{count * len(queries)} service seeds")
PY

for name in request service; do
  for file in "$here/regressions/$name"/*; do
    [ -e "$file" ] && cp "$file" "$out/$name/regression-$(basename "$file")"
  done
done
echo "$(ls "$out/request" | wc -l) request seeds, $(ls "$out/service" | wc -l) service seeds"

# mcp: choice byte, frame size, then the answer to a tools/call with id 3
# (or a request, NUL, and its answer); see fuzz_targets/mcp.rs.
rm -rf "$out/mcp"
mkdir -p "$out/mcp"
python3 - "$out/mcp" <<'PY'
import json, pathlib, sys
out = pathlib.Path(sys.argv[1])
events = {"data": [{"id": i, "title": f"Event {i}", "room": "A" if i % 2 else None} for i in range(4)], "total": 9}
def result(text, **extra):
    return {"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text": text}], "structuredContent": {"n": 1}, **extra}}
answers = [
    result(json.dumps(events)),
    result(json.dumps([{"a": 1, "b": "x"}, {"a": 2, "b": "y"}])),
    result("plain text"),
    result(json.dumps(events), isError=True),
    {"jsonrpc": "2.0", "id": 3, "error": {"code": -1, "message": "no"}},
    [result(json.dumps(events)), {"jsonrpc": "2.0", "method": "notifications/progress"}],
]
count = 0
for i, answer in enumerate(answers):
    text = json.dumps(answer).encode()
    for choice in range(16):
        body = text if choice & 1 == 0 else b"id: 1\r\nevent: message\r\ndata: " + text + b"\r\n\r\n: ping\n\n"
        (out / f"answer-{i}-{choice}").write_bytes(bytes([choice, 7 + choice * 13]) + body)
        count += 1
batch = b'[{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"other"}}]'
(out / "batch").write_bytes(bytes([2, 64]) + batch + b"\0" + json.dumps({**result(json.dumps(events)), "id": "a"}).encode())
print(f"{count + 1} mcp seeds")
PY
for file in "$here/regressions/mcp"/*; do
  [ -e "$file" ] && cp "$file" "$out/mcp/regression-$(basename "$file")"
done

# template: a template, NUL, a JSON record. The example gateway configs'
# templates over records shaped like the corpus, every filter, nested and
# escaped groups, and a few broken ones near the bounds.
rm -rf "$out/template"
mkdir -p "$out/template"
python3 - "$here/../../../examples/gateway" "$out/template" <<'PY'
import json, pathlib, re, sys
configs, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
templates = []
for path in sorted(configs.glob("*.toml")):
    for match in re.finditer(r"""^line = ("[^\n]*"|'[^\n]*')$""", path.read_text(encoding="utf-8"), re.M):
        text = match.group(1)
        templates.append(json.loads(text) if text.startswith('"') else text[1:-1])
templates += [
    "{a|time} {a|date} {a|ago} {n|bytes} {s|short} {s|trunc(3)} {s|upper} {s|lower}",
    "{tags|join(/)|upper} {missing|default(\"n/a (none)\")} {t|flag(yes)}",
    "{{literal}} {a.b.0} {?({a}{? {b}})}",
    "{?" * 32 + "{a}" + " }" * 32,
    "{?" * 33 + "{a}" + " }" * 33,
    "x" * 4096,
    "{a" + "|upper" * 600 + "}",
    "{a|trunc(99999999999999999999)} {a|default(\"\\\"\")}",
]
records = [
    {"a": "2025-03-01T09:30:00Z", "n": 2300000, "s": "héllo wörld", "tags": ["x", 1], "t": True, "b": None},
    {"a": {"b": ["deep", "er"]}, "title": "line\nbreak", "start_at": 1740830400, "tags": []},
    {"start_at": "2025-03-01T09:30:00+01:00", "end_at": "2025-03-01T10:00", "title": "Plan", "location": "A", "recurrence": "weekly", "all_day": False},
]
count = 0
for i, template in enumerate(templates):
    for j, record in enumerate(records):
        (out / f"template-{i}-{j}").write_bytes(template.encode("utf-8") + b"\0" + json.dumps(record, ensure_ascii=False).encode("utf-8"))
        count += 1
print(f"{count} template seeds")
PY
for file in "$here/regressions/template"/*; do
  [ -e "$file" ] && cp "$file" "$out/template/regression-$(basename "$file")"
done

# mcp_stdio: choice byte, chunk size, the client's lines, NUL, the server's
# lines; see fuzz_targets/mcp_stdio.rs.
rm -rf "$out/mcp_stdio"
mkdir -p "$out/mcp_stdio"
python3 - "$out/mcp_stdio" <<'PY'
import json, pathlib, sys
out = pathlib.Path(sys.argv[1])
events = {"data": [{"id": i, "title": f"Event {i}", "room": "A" if i % 2 else None} for i in range(4)], "total": 9}
def line(message):
    return json.dumps(message).encode() + b"\n"
client = b"".join([
    line({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}}),
    line({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
    line({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "list_events", "arguments": {"format": "compact"}}}),
    line({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "other", "arguments": {"format": "toon"}}}),
    line({"jsonrpc": "2.0", "method": "notifications/initialized"}),
])
tools = {"tools": [{"name": "list_events", "description": "d", "inputSchema": {"type": "object", "properties": {}}},
                   {"name": "convert", "inputSchema": {"type": "object", "properties": {"format": {"type": "string"}}}}]}
server = b"".join([
    line({"jsonrpc": "2.0", "id": 0, "result": {"instructions": "Hi."}}),
    line({"jsonrpc": "2.0", "id": 1, "result": tools}),
    line({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progress": 1}}),
    line({"jsonrpc": "2.0", "id": 7, "method": "sampling/createMessage", "params": {}}),
    line({"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": json.dumps(events)}], "structuredContent": events}}),
    line([{"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text": json.dumps([{"a": 1}, {"a": 2}])}]}}]),
])
count = 0
for choice in range(4):
    for size in (1, 7, 64, 255):
        (out / f"session-{choice}-{size}").write_bytes(bytes([choice, size]) + client + b"\0" + server)
        count += 1
# Batches: many calls in one line, cancellations, a refused format, and
# their answers in one batch line, out of order, with strangers between.
calls = [{"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": "list_events", "arguments": {"format": ["toon", "compact", "xml", "json"][i % 4]}}} for i in range(40)]
cancel = [{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": i}} for i in range(0, 40, 5)]
answers = [{"jsonrpc": "2.0", "id": i, "result": {"content": [{"type": "text", "text": json.dumps(events)}]}} for i in reversed(range(45))]
answers.insert(3, {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 6}})
answers.insert(9, {"jsonrpc": "2.0", "id": 8, "error": {"code": -1, "message": "no"}})
batch_client = line(calls) + line(cancel)
batch_server = line(answers)
for choice in range(4):
    for size in (3, 255):
        (out / f"batch-{choice}-{size}").write_bytes(bytes([choice, size]) + batch_client + b"\0" + batch_server)
        count += 1
print(f"{count} mcp_stdio seeds")
PY
for file in "$here/regressions/mcp_stdio"/*; do
  [ -e "$file" ] || continue
  cp "$file" "$out/mcp_stdio/regression-$(basename "$file")"
done
