-- benchmarks/http_paths.lua: a wrk script for benchmarks/http.sh. Each wrk thread cycles through a list of
-- request paths (one a line in the file $BENCH_PATHS: the pages of a session, or single transcripts) with
-- `Authorization: Bearer $BENCH_TOKEN`, and at the end prints one machine-readable line:
--   RESULT requests=… duration_us=… bytes=… connect=… read=… write=… status=… timeout=… p50_us=… p99_us=… max_us=…
-- `status` is wrk's count of answers with a status above 399; the socket errors are connect/read/write/timeout.
--
--   BENCH_PATHS=paths.txt BENCH_TOKEN=agt_… wrk -t2 -c200 -d30s --latency -s benchmarks/http_paths.lua http://127.0.0.1:PORT

local paths = {}
local path = assert(os.getenv("BENCH_PATHS"), "BENCH_PATHS is not set")
local list = assert(io.open(path))
for line in list:read("*a"):gmatch("[^\n]+") do paths[#paths + 1] = line end
list:close()
assert(#paths > 0, "BENCH_PATHS lists no paths")
local token = assert(os.getenv("BENCH_TOKEN"), "BENCH_TOKEN is not set")
wrk.headers["Authorization"] = "Bearer " .. token

-- setup runs in the main Lua state, once per wrk thread: give each thread its own number.
local threads = 0
function setup(thread)
  thread:set("thread_number", threads)
  threads = threads + 1
end

-- The requests are formatted once per thread (wrk.format in request() would cost wrk CPU on every request);
-- each thread starts at a different place in the list, so the threads do not ask for the same path together.
local requests, next_index
function init(args)
  requests = {}
  for i, path in ipairs(paths) do requests[i] = wrk.format("GET", path) end
  next_index = ((thread_number or 0) * 7919) % #requests
end

function request()
  next_index = next_index % #requests + 1
  return requests[next_index]
end

function done(summary, latency, _)
  local e = summary.errors
  io.write(string.format(
    "RESULT requests=%d duration_us=%d bytes=%d connect=%d read=%d write=%d status=%d timeout=%d p50_us=%d p99_us=%d max_us=%d\n",
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(99), latency.max))
end
