-- Mixed agent traffic for soak.sh: JSON, TOON, compact, sparse fieldsets,
-- the preference headers and a missing record (404), in turn. Each thread
-- counts statuses; done() prints the breakdown and the 5xx count. (HEAD is
-- sent by soak.sh with curl: wrk waits for a body after a HEAD answer's
-- Content-Length and stalls.)

local requests = {
  {"GET", "/api/v1/events?limit=20"},
  {"GET", "/api/v1/events?limit=20&format=toon"},
  {"GET", "/api/v1/events?limit=20&format=compact"},
  {"GET", "/api/v1/events?limit=20&fields=id,title,start_at"},
  {"GET", "/api/v1/emails?limit=10&format=toon&fields=id,subject"},
  {"GET", "/api/v1/notes?limit=10", {["X-Prefer-Format"] = "compact"}},
  {"GET", "/api/v1/contacts?limit=10", {["Accept"] = "text/toon"}},
  {"GET", "/api/v1/files?limit=10&format=compact"},
  {"GET", "/api/v1/events/999999999"},
  {"GET", "/api/v1/events/999999999?format=toon"},
}

local threads = {}

function setup(thread)
  thread:set("id", #threads)
  table.insert(threads, thread)
end

function init(args)
  counts = {}
  errors5xx = 0
  index = id % #requests
end

function request()
  index = index % #requests + 1
  local r = requests[index]
  return wrk.format(r[1], r[2], r[3])
end

function response(status, headers, body)
  local key = tostring(status)
  counts[key] = (counts[key] or 0) + 1
  if status >= 500 then
    errors5xx = errors5xx + 1
  end
end

function done(summary, latency, requests)
  local total, fivexx = {}, 0
  for _, thread in ipairs(threads) do
    for status, n in pairs(thread:get("counts")) do
      total[status] = (total[status] or 0) + n
    end
    fivexx = fivexx + thread:get("errors5xx")
  end
  local statuses = {}
  for status in pairs(total) do table.insert(statuses, status) end
  table.sort(statuses)
  for _, status in ipairs(statuses) do
    io.write(string.format("status %s: %d\n", status, total[status]))
  end
  local e = summary.errors
  io.write(string.format("requests: %d\n", summary.requests))
  io.write(string.format("5xx: %d\n", fivexx))
  io.write(string.format("socket errors: connect %d, read %d, write %d, timeout %d\n",
    e.connect, e.read, e.write, e.timeout))
  io.write(string.format("latency: p50 %.2f ms, p99 %.2f ms\n",
    latency:percentile(50) / 1000, latency:percentile(99) / 1000))
end
