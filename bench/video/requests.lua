-- wrk script: POSTs pre-built Batch* bodies to ROUTE, one per line of BODIES_FILE, round-robin from a random
-- start. Requests are formatted once in init so the load generator spends its time on the wire, not in Lua.
local requests = {}
local index = 0

function init(args)
  local headers = { ["Content-Type"] = "application/json", ["Accept-Language"] = "en", ["x-api-key"] = os.getenv("API_KEY") or "" }
  local route = os.getenv("ROUTE")
  for line in io.lines(os.getenv("BODIES_FILE")) do
    requests[#requests + 1] = wrk.format("POST", route, headers, line)
  end
  index = math.random(#requests)
end

function request()
  index = index % #requests + 1
  return requests[index]
end

function response(status, headers, body)
  if status ~= 200 then
    io.stderr:write("unexpected status " .. status .. "\n")
  end
end
