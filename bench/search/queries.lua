-- wrk script: GET /v1/search with the queries of one kind (QUERIES_FILE, one
-- URL-encoded query a line), round-robin, Arabic and English locales alternating.
local queries = {}
local index = 0

function init(args)
  for line in io.lines(os.getenv("QUERIES_FILE")) do queries[#queries + 1] = line end
  index = math.random(#queries)
end

function request()
  index = index % #queries + 1
  local headers = { ["x-api-key"] = os.getenv("API_KEY"), ["Accept-Language"] = (index % 2 == 0) and "ar" or "en" }
  return wrk.format("GET", "/v1/search?page_size=20&q=" .. queries[index], headers)
end

function response(status, headers, body)
  if status ~= 200 then io.stderr:write("unexpected status " .. status .. "\n") end
end
