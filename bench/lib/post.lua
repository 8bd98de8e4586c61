-- wrk script: an empty POST, for the bare server (bench/batch-get/ceiling-server.ts answers any).
wrk.method = "POST"
wrk.body = "{}"
wrk.headers["Content-Type"] = "application/json"
