-- wrk script, a thread a connection: each connection moves the same COUNT
-- entries of its own playlist to just before an entry in its middle, again
-- and again (each a real write: a new version, new keys in the same gap).
-- SETUP_FILE has a line a playlist: "<token> <playlist id> <entry id to go
-- before> <entry id to move> ...".
local lines = {}
for line in io.lines(os.getenv("SETUP_FILE")) do lines[#lines + 1] = line end
local threads = 0

function setup(thread)
  threads = threads + 1
  thread:set("index", threads)
end

local token, path, body

function init(args)
  local words = {}
  for word in string.gmatch(lines[index], "%S+") do words[#words + 1] = word end
  token = words[1]
  path = "/v1/playlists/" .. words[2] .. "/items:move"
  local moved = {}
  for i = 4, #words do moved[#moved + 1] = '"' .. words[i] .. '"' end
  body = '{"itemIds":[' .. table.concat(moved, ",") .. '],"beforeItemId":"' .. words[3] .. '"}'
end

function request()
  return wrk.format("POST", path, { ["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. token }, body)
end
