-- wrk script: one POST body (BODY_FILE) to POST_PATH, sent again and again with TOKEN.
local token = os.getenv("TOKEN")
local file = io.open(os.getenv("BODY_FILE"), "r")
local body = file:read("*a")
file:close()
wrk.method = "POST"
wrk.path = os.getenv("POST_PATH")
wrk.body = body
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. token
