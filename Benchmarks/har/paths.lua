-- wrk script: cycles over the paths in the file given after `--`, sending the Accept header
-- the HAR recorded (the default replay key is method + URL + Accept). Each wrk thread starts
-- at its own offset so the threads do not ask for the same URL at the same moment.
local threads = 0

function setup(thread)
    thread:set("offset", threads * 337)
    threads = threads + 1
end

local paths = {}
local index = 0

function init(args)
    for line in io.lines(args[1]) do
        if #line > 0 then paths[#paths + 1] = line end
    end
    index = (offset or 0) % #paths
end

function request()
    index = index % #paths + 1
    return wrk.format("GET", paths[index], { ["Accept"] = "image/avif,image/webp,image/apng,image/*,*/*;q=0.8" })
end
