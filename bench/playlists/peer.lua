-- wrk script: the peer of a playlist's pages, BatchGetSongs of each page's
-- songs in turn (BODIES_FILE: a JSON body a line), with TOKEN: the same
-- rendered songs through the same cache, without the playlist's queries.
local token = os.getenv("TOKEN")
local bodies = {}
for line in io.lines(os.getenv("BODIES_FILE")) do bodies[#bodies + 1] = line end
local sent = 0

function request()
  sent = sent + 1
  return wrk.format("POST", "/v1/music/songs:batchGet",
    { ["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. token }, bodies[(sent % #bodies) + 1])
end
