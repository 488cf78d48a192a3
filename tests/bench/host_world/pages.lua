-- wrk script of scripts/bench-host.sh: GET the paths listed in the file $PATHS_FILE in turn (each
-- wrk thread from its own offset), so the load spreads over many games' pages.
local paths = {}
for line in io.lines(os.getenv("PATHS_FILE")) do paths[#paths + 1] = line end
local i = math.random(#paths)
request = function()
  i = i % #paths + 1
  return wrk.format("GET", paths[i])
end
