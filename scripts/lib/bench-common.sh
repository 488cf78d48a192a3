# Shared by the benchmark scripts; source it (nothing runs until a function is called).
# warn_unless_o2: benchmarks measure the daemon people run, built at -O2. scripts/test.sh
# configures build/ at -O1 and CMake keeps that in its cache, so a script that measures a build
# directory as it finds it says so when it is not at -O2.
warn_unless_o2() {  # build_dir
  if [ ! -f "$1/CMakeCache.txt" ]; then
    echo "note: $1 is not a build directory; cannot tell the binary's -O level" >&2
    return 0
  fi
  grep -qx 'ADJUTANT_OPT:STRING=-O2' "$1/CMakeCache.txt" ||
    echo "warning: $1 is not built at -O2 (scripts/test.sh builds build/ at -O1), so these" \
      "figures are slower than the daemon's; configure it with -DADJUTANT_OPT=-O2" >&2
}
# bench_begin: a work directory in $work, background pids collected in the array pids, and both
# (and nginx, when started) cleaned up on exit; with KEEP_WORK=1 in the environment the directory
# (logs, the database) is kept and its path printed, to look into a run.
bench_begin() {  # name
  work=$(mktemp -d "/tmp/adj-bench-$1.XXXXXX")
  chmod 755 "$work"  # nginx's workers (user nobody) read the mirrored bodies under it
  pids=()
  trap bench_end EXIT
}
bench_end() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  kill "$(cat "$work/nginx.pid" 2>/dev/null)" 2>/dev/null || true
  wait 2>/dev/null || true
  if [ "${KEEP_WORK:-0}" = 1 ]; then
    echo "kept: $work" >&2
  else
    rm -rf "$work"
  fi
}
free_port() {
  /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
# nginx on 127.0.0.1:PORT serving, for each "path|header" line on standard input, the bytes and
# content type the server at BASE answers for that path (with that header) as an exact location;
# the bodies are $work/www/0, 1, ... in input order. Returns once nginx answers.
nginx_mirror() {  # port base
  mkdir -p "$work/www" "$work/ngx"
  {
    echo "daemon off; pid $work/nginx.pid; error_log $work/ngx/error.log; worker_processes auto;"
    echo "events { worker_connections 1024; }"
    echo "http { access_log off; sendfile on; tcp_nopush on; keepalive_requests 100000;"
    echo "  client_body_temp_path $work/ngx; proxy_temp_path $work/ngx; fastcgi_temp_path $work/ngx;"
    echo "  uwsgi_temp_path $work/ngx; scgi_temp_path $work/ngx;"
    echo "  server { listen 127.0.0.1:$1;"
    local i=0 path header ctype args first=""
    while IFS='|' read -r path header; do
      args=()
      [ -n "$header" ] && args=(-H "$header")
      ctype=$(curl -fs "${args[@]}" -o "$work/www/$i" -w '%{content_type}' "$2$path")
      echo "    location = $path { default_type \"$ctype\"; alias $work/www/$i; }"
      [ -n "$first" ] || first=$path
      i=$((i + 1))
    done
    echo "  }"
    echo "}"
    echo "$first" >"$work/ngx/first"
  } >"$work/nginx.conf"
  nginx -c "$work/nginx.conf" -p "$work/ngx" &
  pids+=($!)
  for _ in $(seq 50); do
    curl -fs -o /dev/null "http://127.0.0.1:$1$(cat "$work/ngx/first")" && break
    sleep 0.1
  done
}
# wrk's figures for one run: "requests/s p99_ms". Arguments are wrk's. A run with answers other
# than 2xx or 3xx (an error page is not the page) says so on standard error and counts 0
# requests/s; socket errors (timeouts, resets) are said there too.
wrk_figures() {
  wrk --latency "$@" | awk '/Non-2xx or 3xx responses:/ { bad = $NF }
    /Socket errors:/ { sock = $0 }
    /Requests\/sec/ { rps = $2 }
    $1 == "99%" { v = $2; if (v ~ /us$/) { sub(/us/, "", v); v /= 1000 }
                  else if (v ~ /ms$/) { sub(/ms/, "", v) }
                  else if (v ~ /s$/) { sub(/s/, "", v); v *= 1000 } p99 = v }
    END { if (sock != "") printf "wrk: %s\n", sock > "/dev/stderr"
          if (bad > 0) { printf "wrk: %d answers not 2xx or 3xx\n", bad > "/dev/stderr"; rps = 0 }
          printf "%.0f %.2f\n", rps, p99 }'
}
