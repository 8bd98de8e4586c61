-- wrk script, a thread a connection: each connection adds COUNT songs to its
-- own playlist just before one entry in its middle, then removes what it
-- added, and again: the playlist keeps its size, and every add lands in the
-- same gap. SETUP_FILE has a line a playlist: "<token> <playlist id>
-- <entry id> <song id> ...".
local lines = {}
for line in io.lines(os.getenv("SETUP_FILE")) do lines[#lines + 1] = line end
local count = tonumber(os.getenv("COUNT"))
local threads = 0

function setup(thread)
  threads = threads + 1
  thread:set("index", threads)
end

local token, playlist, before, add_body
local added = nil

function init(args)
  local words = {}
  for word in string.gmatch(lines[index], "%S+") do words[#words + 1] = word end
  token, playlist, before = words[1], words[2], words[3]
  local songs = {}
  for i = 1, count do songs[i] = string.format('{"value":"%s"}', words[4 + ((i - 1) % (#words - 3))]) end
  add_body = '{"songIdList":[' .. table.concat(songs, ",") .. '],"beforeItemId":"' .. before .. '"}'
end

function request()
  local headers = { ["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. token }
  if added ~= nil then
    return wrk.format("POST", "/v1/playlists/" .. playlist .. "/items:batchRemove", headers, '{"itemIds":[' .. added .. ']}')
  end
  return wrk.format("POST", "/v1/playlists/" .. playlist .. "/items:batchAdd", headers, add_body)
end

function response(status, headers, body)
  if added ~= nil then
    added = nil
    return
  end
  local ids = {}
  for id in string.gmatch(body, '"itemId":"([^"]+)"') do ids[#ids + 1] = '"' .. id .. '"' end
  if #ids > 0 then added = table.concat(ids, ",") end
end
