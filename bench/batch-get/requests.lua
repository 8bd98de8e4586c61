-- wrk script: POSTs pre-built BatchGetSongs bodies, one per line of BODIES_FILE,
-- round-robin. Requests are formatted once in init so the load generator
-- spends its time on the wire, not in Lua.
local requests = {}
local index = 0

function init(args)
  local path = os.getenv("BODIES_FILE")
  local headers = { ["Content-Type"] = "application/json", ["Accept-Language"] = "en" }
  -- AUTHORIZATION ("Bearer ...") replaces the API key, to compare the two credentials.
  local authorization = os.getenv("AUTHORIZATION")
  if authorization and authorization ~= "" then
    headers["Authorization"] = authorization
  else
    headers["x-api-key"] = os.getenv("API_KEY") or ""
  end
  for line in io.lines(path) do
    requests[#requests + 1] = wrk.format("POST", "/v1/music/songs:batchGet", headers, line)
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
