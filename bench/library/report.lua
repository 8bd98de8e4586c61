-- wrk script: ReportPlays of 50 fresh plays at a time, each request as one of
-- the users whose tokens TOKENS_FILE lists (a line each), in turn.
local tokens = {}
for line in io.lines(os.getenv("TOKENS_FILE")) do tokens[#tokens + 1] = line end
local started = os.getenv("STARTED_AT")
local songs = tonumber(os.getenv("SONGS"))
local sent = 0
math.randomseed(os.time())
local thread_id = tostring(os.time()) .. "-" .. tostring(math.random(1, 1e9))

function request()
  sent = sent + 1
  local plays = {}
  for i = 1, 50 do
    plays[i] = string.format('{"playId":"b%s-%d-%d","songId":{"value":"song-%d"},"startedAt":"%s","msPlayed":%d}',
      thread_id, sent, i, math.random(1, songs), started, (i % 3 == 0) and 10000 or 45000)
  end
  local token = tokens[(sent % #tokens) + 1]
  return wrk.format("POST", "/v1/library/history:report",
    { ["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. token },
    '{"plays":[' .. table.concat(plays, ",") .. ']}')
end
