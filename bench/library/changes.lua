-- wrk script: GetLibraryChanges from cursors spread over a long feed
-- (CURSORS_FILE, one a line), drawn at random: a page of up to 500 each.
local cursors = {}
for line in io.lines(os.getenv("CURSORS_FILE")) do cursors[#cursors + 1] = line end
local token = os.getenv("TOKEN")

function request()
  local cursor = cursors[math.random(1, #cursors)]
  return wrk.format("GET", "/v1/library/changes?cursor=" .. cursor, { ["Authorization"] = "Bearer " .. token })
end
