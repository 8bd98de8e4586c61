-- wrk script: walks a list page by page, each connection following the
-- nextPageToken of the answer before (an empty token starts again at the
-- first page). PATH is the list (with its query), TOKEN the access token.
local path = os.getenv("PATH_AND_QUERY")
local token = os.getenv("TOKEN")
local next_token = ""

function request()
  local url = path
  if next_token ~= "" then
    url = url .. (string.find(path, "?", 1, true) and "&" or "?") .. "page_token=" .. next_token
  end
  return wrk.format("GET", url, { ["Authorization"] = "Bearer " .. token })
end

function response(status, headers, body)
  next_token = string.match(body, '"nextPageToken":"([^"]*)"') or ""
end
