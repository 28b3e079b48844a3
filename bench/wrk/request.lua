-- The load generator's requests (wrk), set by make bench (bench/driver) through the environment:
--   BENCH_METHOD, BENCH_PATH, BENCH_AUTHORIZATION, BENCH_BODY_FILE (optional)
--   BENCH_FOLLOW=next      GET /bookings: each request carries the `next` of the thread's last answer,
--                          back to the beginning after the feed's last page
--   BENCH_CHANGING=capacity  PUT /lots/bench-put-<0-511> with the body's "capacity":0 set at random,
--                          as the pgbench script lot_put_changing.sql does
--   BENCH_EXPECT=<status>  a refusal measured: answers of any other status are counted and printed
--                          as "Unexpected status: <n>" (wrk's own count is of non-2xx answers)
--   BENCH_MIX=<file>       instead of the above, every route at once (the soak): a line per request,
--                          "METHOD PATH [BODY_FILE]", one taken at random for each request; a path
--                          with {lot} is the changing PUT, /v1/bookings follows `next`; answers
--                          401, 429 and 5xx are printed as "Unexpected status: <n>" (422s are expected)
local method = os.getenv("BENCH_METHOD")
local path = os.getenv("BENCH_PATH")
local headers = { ["Authorization"] = os.getenv("BENCH_AUTHORIZATION") }
local body = nil
local body_file = os.getenv("BENCH_BODY_FILE")
if body_file and body_file ~= "" then
  local f = assert(io.open(body_file, "rb"))
  body = f:read("*a")
  f:close()
  headers["Content-Type"] = "application/json"
end
local follow = os.getenv("BENCH_FOLLOW") == "next"
local changing = os.getenv("BENCH_CHANGING") == "capacity"
local next_cursor = nil

local expect = tonumber(os.getenv("BENCH_EXPECT") or "")

-- The soak's requests: each line of BENCH_MIX, its body read once.
local mix = nil
local mix_file = os.getenv("BENCH_MIX")
if mix_file and mix_file ~= "" then
  mix = {}
  for line in io.lines(mix_file) do
    local m, p, b = line:match("^(%S+) (%S+) ?(%S*)$")
    local entry = { method = m, path = p, headers = { ["Authorization"] = headers["Authorization"] } }
    if b ~= "" then
      local f = assert(io.open(b, "rb"))
      entry.body = f:read("*a")
      f:close()
      entry.headers["Content-Type"] = "application/json"
    end
    table.insert(mix, entry)
  end
  follow = true
  expect = 500
end
local threads = {}

function setup(thread)
  thread:set("seed", math.random(1, 1000000))
  table.insert(threads, thread)
end

function init(args)
  math.randomseed(seed or os.time())
end

if mix then
  function request()
    local e = mix[math.random(1, #mix)]
    if e.path:find("{lot}", 1, true) then
      local sent = e.body:gsub('"capacity":0', '"capacity":' .. math.random(1, 100000), 1)
      return wrk.format(e.method, e.path:gsub("{lot}", "bench-put-" .. math.random(0, 511)), e.headers, sent)
    end
    if next_cursor and e.path:find("^/v1/bookings") then
      return wrk.format(e.method, e.path .. "&since=" .. next_cursor, e.headers, e.body)
    end
    return wrk.format(e.method, e.path, e.headers, e.body)
  end
elseif changing or follow then
  function request()
    if changing then
      local lot = "bench-put-" .. math.random(0, 511)
      local sent = body:gsub('"capacity":0', '"capacity":' .. math.random(1, 100000), 1)
      return wrk.format(method, path:gsub("{lot}", lot), headers, sent)
    end
    if next_cursor then
      return wrk.format(method, path .. "&since=" .. next_cursor, headers, body)
    end
    return wrk.format(method, path, headers, body)
  end
else
  -- A request that never changes is wrk's static request: built once, sent with no Lua call per
  -- request (a request() function costs the load generator a Lua call a request, on the cores the
  -- gateway and the database share; pgbench pays nothing alike).
  wrk.method = method
  wrk.path = path
  wrk.body = body
  for name, value in pairs(headers) do
    wrk.headers[name] = value
  end
end

if follow and not mix then
  -- After the feed's last page (has_more false: a short or empty page, or a full one with nothing
  -- after it) the thread starts again from the beginning, so every page measured is a full page.
  -- has_more is the answer's last key (jsonb orders keys by length, then bytes): looked for in the
  -- tail only, not across a page of bookings.
  function response(status, headers, answer)
    if answer:find('"has_more": true', math.max(1, #answer - 40), true) then
      next_cursor = answer:match('"next"%s*:%s*"([^"]+)"')
    else
      next_cursor = nil
    end
  end
end

if expect then
  unexpected = 0  -- global: done() reads each thread's through thread:get
  function response(status, headers, answer)
    if mix then
      -- (a thread's connections interleave: the answer of any feed read moves the one cursor)
      if status >= 500 or status == 401 or status == 429 then
        unexpected = unexpected + 1
      elseif answer:find('"has_more": true', math.max(1, #answer - 40), true) then
        next_cursor = answer:match('"next"%s*:%s*"([^"]+)"')
      elseif answer:find('"has_more": false', math.max(1, #answer - 40), true) then
        next_cursor = nil
      end
    elseif status ~= expect then
      unexpected = unexpected + 1
    end
  end

  function done(summary, latency, requests)
    local total = 0
    for _, thread in ipairs(threads) do
      total = total + thread:get("unexpected")
    end
    io.write(string.format("Unexpected status: %d\n", total))
  end
end
