#!/bin/sh
# A throw-away PostgreSQL cluster for the tests (tests/support/pg_test_db.h).
#   scripts/pg-test-cluster.sh start DIR PORT   initdb in DIR/data (once), start it listening only
#                                              on the Unix socket DIR/.s.PGSQL.PORT; prints the
#                                              conninfo "host=DIR port=PORT user=adj"
#   scripts/pg-test-cluster.sh stop DIR PORT    stop it and remove DIR
# ADJUTANT_PG_BINDIR=DIR uses the server binaries in DIR only.
# Durability is off (fsync, synchronous_commit, full_page_writes): the data is thrown away.
# As root, the server runs as the `postgres` user (it refuses root). Exit status 2 when the
# PostgreSQL server is not installed; with ADJUTANT_PG_MISSING_OK=1 (the ctest fixture) it then
# writes the reason to DIR/unavailable and exits 0, and the tests skip, saying why.
set -eu
cmd=${1:-}; dir=${2:-}; port=${3:-}
if [ -z "$cmd" ] || [ -z "$dir" ] || [ -z "$port" ]; then
  echo "usage: $0 start|stop DIR PORT" >&2
  exit 64
fi
# ADJUTANT_PG_BINDIR: the server binaries to use (only those); else Debian's newest, else PATH.
bindir=${ADJUTANT_PG_BINDIR:-}
if [ -z "${ADJUTANT_PG_BINDIR:-}" ]; then
  for d in /usr/lib/postgresql/*/bin; do
    if [ -x "$d/pg_ctl" ]; then bindir=$d; fi
  done
  if [ -z "$bindir" ] && command -v initdb >/dev/null 2>&1; then
    bindir=$(dirname "$(command -v initdb)")
  fi
fi
if [ -z "$bindir" ] || [ ! -x "$bindir/initdb" ]; then
  why="PostgreSQL server binaries not found (apt-get install postgresql)"
  if [ "$cmd" = start ] && [ "${ADJUTANT_PG_MISSING_OK:-}" = 1 ]; then
    mkdir -p "$dir" && echo "$why" >"$dir/unavailable"
    echo "$why: the PostgreSQL tests will be skipped" >&2
    exit 0
  fi
  if [ "$cmd" = stop ]; then rm -rf "$dir"; exit 0; fi
  echo "$why" >&2
  exit 2
fi

as_owner() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

# The data directory lives in memory when /dev/shm is a writable tmpfs (DIR/data links to it):
# every test creates and drops a database of ~300 files, and on ext4 creating files after many
# deletions makes the kernel search its inode bitmaps (about 0.5 CPU-s a test, most of the
# PostgreSQL storage tests' time).
shm=/dev/shm/adj-pg-$(basename "$dir")
in_memory() {
  [ -d /dev/shm ] && [ -w /dev/shm ] && [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ]
}

case "$cmd" in
  start)
    mkdir -p "$dir"
    if [ ! -e "$dir/data" ] && in_memory; then
      mkdir -p "$shm" && chmod 700 "$shm" && ln -sfn "$shm" "$dir/data"
      if [ "$(id -u)" = 0 ]; then chown postgres "$shm"; fi
    fi
    if [ "$(id -u)" = 0 ]; then chown postgres "$dir"; fi
    if [ ! -f "$dir/data/PG_VERSION" ]; then
      as_owner "$bindir/initdb" -D "$dir/data" -A trust -U adj -E UTF8 --locale=C.UTF-8 \
        >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 1; }
    fi
    # Still running from a run that was interrupted: use it as it is.
    if as_owner "$bindir/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
      echo "host=$dir port=$port user=adj"
      exit 0
    fi
    as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
      -o "-p $port -k $dir -c listen_addresses='' -c fsync=off -c synchronous_commit=off \
-c full_page_writes=off -c max_connections=200 -c shared_buffers=64MB" start >/dev/null ||
      { cat "$dir/server.log" >&2; exit 1; }
    echo "host=$dir port=$port user=adj"
    ;;
  stop)
    if [ -f "$dir/data/postmaster.pid" ]; then
      as_owner "$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$dir" "$shm"
    ;;
  *)
    echo "usage: $0 start|stop DIR PORT" >&2
    exit 64
    ;;
esac
