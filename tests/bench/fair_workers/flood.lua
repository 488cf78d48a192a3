-- scripts/bench-fair-workers.sh: client A asks for the game page with a new query each time, so
-- each request misses the page cache and makes the page again.
local n = 0
request = function()
  n = n + 1
  return wrk.format("GET", wrk.path .. "?n=" .. n)
end
