#!/usr/bin/env bash
# Fails when a project include crosses the layer rules of docs/architecture.md. Each folder may
# include only the folders listed for it (its own included); system and library headers are not
# checked. Run by scripts/test.sh before it builds; prints each offending line as FILE:LINE.
#
#   base/           (nothing)        text, escaping, hashing, addresses
#   rules/          base             the game: no database, no clock, no sockets
#   storage/        rules            the store interfaces and the factory that picks a backend
#   storage/core    storage/., rules what both backends share: checks, codecs, error texts
#   storage/sqlite  storage/core     one backend; it never includes the other (nor the other it)
#   storage/postgres storage/core
#   server/app      storage          the services: no pages, mail or sockets
#   server/render   rules            the map as SVG and PNG
#   server/http     rules/core, base the transport: no services, routes, mail or command line
#   server/web      app, render, http (and never storage/store.h: routes call the services)
#   server/mail     app
#   server/daemon   web, mail, render, http
#   server/cli      daemon, and everything below it
# A folder's allowance includes everything its allowed folders may include (rules/ may use
# base/, so storage/, which may use rules/, may use base/ too); schemas/ (the embedded data) is
# open to all. "DIR/." allows the files directly in DIR, not its subfolders.
set -euo pipefail
cd "$(dirname "$0")/.."

declare -A below=(
  [base]=""
  [rules]="base"
  [storage]="rules"
  [storage/core]="storage/. rules"
  [storage/sqlite]="storage/core"
  [storage/postgres]="storage/core"
  [server/app]="storage"
  [server/render]="rules"
  [server/http]="rules/core base"
  [server/web]="server/app server/render server/http"
  [server/mail]="server/app"
  [server/daemon]="server/web server/mail server/render server/http"
  [server/cli]="server/daemon"
)

# allowed LAYER: the layer, the layers it names, and theirs, one per line.
allowed() {
  echo "$1"
  local next
  for next in ${below[$1]}; do
    if [ -n "${below[$next]+x}" ]; then allowed "$next"; else echo "$next"; fi
  done
}

status=0
for layer in "${!below[@]}"; do
  [ -d "$layer" ] || continue
  mapfile -t ok < <(allowed "$layer" | sort -u)
  ok+=(schemas)
  exclude=()
  # A nested layer (server/app under server/) is checked as itself, not as its parent.
  for other in "${!below[@]}"; do
    [[ "$other" == "$layer"/* ]] && exclude+=(--exclude-dir="${other#"$layer"/}")
  done
  while IFS= read -r hit; do
    target=$(sed -E 's/.*#include "([^"]+)".*/\1/' <<<"$hit")
    good=0
    for prefix in "${ok[@]}"; do
      if [[ "$prefix" == */. ]]; then
        [[ "$(dirname "$target")" == "${prefix%/.}" ]] && good=1 && break
      else
        [[ "$target" == "$prefix"/* ]] && good=1 && break
      fi
    done
    # Includes of files that are not in a project folder (generated headers) are not checked.
    top=${target%%/*}
    case "$top" in base | rules | storage | server | schemas) ;; *) good=1 ;; esac
    if [ "$good" -eq 0 ]; then
      echo "check-layers: ${hit%%:#*}: $layer may not include $target"
      status=1
    fi
  done < <(grep -rn "${exclude[@]}" --include='*.h' --include='*.cc' -E '^\s*#\s*include "' "$layer" |
             sed -E 's/^([^:]+:[0-9]+):\s*/\1:/')
done
# The web's routes reach the database through the services only (server/app), never the whole
# Store (storage/store.h, with the queues and every write).
while IFS= read -r hit; do
  echo "check-layers: ${hit%%:#*}: server/web may not include storage/store.h (call the services)"
  status=1
done < <(grep -rn --include='*.h' --include='*.cc' -E '^\s*#\s*include "storage/store.h"' server/web |
           sed -E 's/^([^:]+:[0-9]+):\s*/\1:/')
if [ "$status" -eq 0 ]; then
  echo "check-layers: every include keeps to the layers (${#below[@]} layers)"
fi
exit "$status"
