-- wrk script: the peer of a library page, GetArtistTopTracks of 20 songs
-- (the same rendered songs from the same cache, without the library's
-- query or page token), over artists 1..COUNT with an API key.
local key = os.getenv("API_KEY")
local count = tonumber(os.getenv("COUNT"))

function request()
  return wrk.format("GET", "/v1/music/artists/artist-" .. math.random(1, count) .. "/top-tracks?page_size=20", { ["x-api-key"] = key })
end
