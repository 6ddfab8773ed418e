# Sourced after scratch.sh and bench-files.sh by the scripts that send traffic shaped like an
# image client's (bench-server-real.sh, compare-builds.sh). Sets $feed_size and writes:
#   $work/stubs/feed/NNNN.png and $work/stubs/feed.yaml   1,000 different 4 KB PNGs, one `file:`
#                                                         stub each (as a replayed HAR makes)
#   $work/feed.lua     wrk: every thread walks the 1,000 URLs in turn, from its own start
#   $work/traced.lua   wrk: /4k.png with a W3C traceparent that differs on every request
#   $work/one.lua      wrk: /4k.png, the same request every time, made per request as the
#                      others are (so the three shapes cost wrk alike)
feed_size=1000
python3 Benchmarks/server/make_feed.py "$work/stubs/feed" "$feed_size" 4096
{
    echo "stubs:"
    for ((n = 0; n < feed_size; n++)); do
        printf '  - name: feed-%04d\n    request: { method: GET, path: /feed/%04d.png }\n    response: { file: feed/%04d.png }\n' "$n" "$n" "$n"
    done
} >"$work/stubs/feed.yaml"
cat >"$work/feed.lua" <<LUA
-- Every thread walks the 1,000 feed URLs in turn, from its own start.
local paths, n = {}, 0
for i = 0, $((feed_size - 1)) do paths[#paths + 1] = string.format("/feed/%04d.png", i) end
local started = 0
function setup(thread) started = started + 1; thread:set("start", started * 397) end
function init(args) n = tonumber(start) or 0 end
function request() n = n + 1; return wrk.format("GET", paths[(n % #paths) + 1]) end
LUA
cat >"$work/traced.lua" <<'LUA'
-- A W3C traceparent that differs on every request: trace id and parent id from a counter.
local n, id = 0, 0
local started = 0
function setup(thread) started = started + 1; thread:set("thread_number", started) end
function init(args) id = tonumber(thread_number) or 0 end
function request()
    n = n + 1
    local trace = string.format("00-%08x%08x%08x%08x-%08x%08x-01", id, n, 4242, n, id, n)
    return wrk.format("GET", "/4k.png", { ["traceparent"] = trace })
end
LUA
cat >"$work/one.lua" <<'LUA'
-- One URL, the same request every time, made as feed.lua and traced.lua make theirs.
function request() return wrk.format("GET", "/4k.png") end
LUA
chmod -R a+rX "$work"
