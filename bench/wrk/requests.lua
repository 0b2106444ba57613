-- A wrk script that sends requests from a file, one per line, tab-separated:
--   METHOD <TAB> PATH <TAB> AUTHORIZATION <TAB> BODY <TAB> ACCEPT-ENCODING <TAB> IF-NONE-MATCH   (the last four may be empty)
-- Environment:
--   WRK_REQUESTS  the file (required)
--   WRK_ORDER     "random" (default: a seeded random line per request) or "sequential"
--   WRK_QUOTA     stop each thread after this many responses (for bounded runs such as
--                 token requests that must stay under a rate limit)
--   WRK_DELAY_MS  wait this long before each request on a connection (a fixed-rate run)
-- done() prints one JSON line: requests, seconds, rps, latency percentiles in ms, errors, 304s.
local ffi = require("ffi")
ffi.cdef [[
  typedef struct { long tv_sec; long tv_nsec; } timespec;
  int clock_gettime(int clk_id, timespec *tp);
]]
local ts = ffi.new("timespec")
local function now()
  ffi.C.clock_gettime(1, ts) -- CLOCK_MONOTONIC
  return tonumber(ts.tv_sec) + tonumber(ts.tv_nsec) / 1e9
end

local threads = {}
local counter = 0
function setup(thread)
  counter = counter + 1
  thread:set("tid", counter)
  table.insert(threads, thread)
end

local lines = {}
local order, quota, delay_ms
local next_line, responses, started, finished = 0, 0, nil, nil
local not_modified = 0

function init(args)
  for line in io.lines(os.getenv("WRK_REQUESTS")) do
    local method, path, auth, body, encoding, tag = line:match("^([^\t]*)\t([^\t]*)\t?([^\t]*)\t?([^\t]*)\t?([^\t]*)\t?(.*)$")
    local headers = {}
    if tag ~= "" then headers["If-None-Match"] = tag end
    if auth ~= "" then headers["Authorization"] = auth end
    if encoding ~= "" then headers["Accept-Encoding"] = encoding end
    if body ~= "" then headers["Content-Type"] = "application/x-www-form-urlencoded" else body = nil end
    table.insert(lines, wrk.format(method, path, headers, body))
  end
  order = os.getenv("WRK_ORDER") or "random"
  quota = tonumber(os.getenv("WRK_QUOTA") or "")
  delay_ms = tonumber(os.getenv("WRK_DELAY_MS") or "")
  math.randomseed(7919 * tid)
  next_line = tid - 1
end

function request()
  if started == nil then started = now() end
  if order == "sequential" then
    next_line = next_line % #lines + 1
    return lines[next_line]
  end
  return lines[math.random(#lines)]
end

if os.getenv("WRK_DELAY_MS") then
  function delay()
    return delay_ms
  end
end

function response(status, headers, body)
  responses = responses + 1
  if status == 304 then
    not_modified = not_modified + 1
    wrk.thread:set("not_modified", not_modified)
  end
  finished = now()
  wrk.thread:set("elapsed", finished - started)
  wrk.thread:set("responses", responses)
  if quota and responses >= quota then wrk.thread:stop() end
end

function done(summary, latency, requests)
  local elapsed, count, unchanged = 0, 0, 0
  for _, thread in ipairs(threads) do
    elapsed = math.max(elapsed, thread:get("elapsed") or 0)
    count = count + (thread:get("responses") or 0)
    unchanged = unchanged + (thread:get("not_modified") or 0)
  end
  local e = summary.errors
  io.write(string.format(
    '{"requests":%d,"seconds":%.3f,"rps":%.0f,"p50_ms":%.3f,"p90_ms":%.3f,"p99_ms":%.3f,"max_ms":%.3f,' ..
    '"non_2xx":%d,"socket_errors":%d,"bytes":%d,"not_modified":%d}\n',
    count, elapsed, elapsed > 0 and count / elapsed or 0,
    latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000, latency.max / 1000,
    e.status, e.connect + e.read + e.write + e.timeout, summary.bytes, unchanged))
end
