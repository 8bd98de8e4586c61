-- wrk script: page views of the music app, each the requests one page makes,
-- sent in order on one connection. PAGE=album: GetAlbum + GetAlbumTracks;
-- PAGE=artist: GetArtist + GetArtistTopTracks + GetArtistDiscography.
-- Ids are drawn uniformly from 1..COUNT (HOT: from 1..HOT, so the answers
-- come from the cache). Arabic and English alternate by page.
local page = os.getenv("PAGE")
local count = tonumber(os.getenv("COUNT"))
local key = os.getenv("API_KEY")
local steps = {}
local step = 0
local views = 0

function init(args)
  math.randomseed(os.time())
end

local function plan()
  local n = math.random(count)
  local lang = (views % 2 == 0) and "ar" or "en"
  views = views + 1
  local headers = { ["x-api-key"] = key, ["Accept-Language"] = lang }
  if page == "album" then
    local base = "/v1/music/albums/album-" .. n
    steps = { wrk.format("GET", base, headers), wrk.format("GET", base .. "/tracks?page_size=50", headers) }
  else
    local base = "/v1/music/artists/artist-" .. n
    steps = {
      wrk.format("GET", base, headers),
      wrk.format("GET", base .. "/top-tracks", headers),
      wrk.format("GET", base .. "/albums", headers),
    }
  end
end

function request()
  if step == 0 then plan() end
  step = step + 1
  local r = steps[step]
  if step == #steps then step = 0 end
  return r
end

function response(status, headers, body)
  if status ~= 200 then
    io.stderr:write("unexpected status " .. status .. "\n")
  end
end
