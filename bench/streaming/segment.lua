-- wrk script: GETs one HLS segment (SEGMENT_PATH), with a Range header when RANGE is set.
local request_text

function init(args)
  local headers = {}
  local range = os.getenv("RANGE")
  if range and range ~= "" then headers["Range"] = range end
  request_text = wrk.format("GET", os.getenv("SEGMENT_PATH"), headers)
end

function request()
  return request_text
end
