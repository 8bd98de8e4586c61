-- wrk script: GETs one path (GET_PATH) with an API key (API_KEY) or, when
-- AUTHORIZATION is set, that header instead.
local request_text

function init(args)
  local headers = { ["Accept-Language"] = "en" }
  local authorization = os.getenv("AUTHORIZATION")
  if authorization and authorization ~= "" then
    headers["Authorization"] = authorization
  else
    headers["x-api-key"] = os.getenv("API_KEY") or ""
  end
  request_text = wrk.format("GET", os.getenv("GET_PATH"), headers)
end

function request()
  return request_text
end

function response(status, headers, body)
  if status ~= 200 then
    io.stderr:write("unexpected status " .. status .. "\n")
  end
end
