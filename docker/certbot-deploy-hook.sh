#!/bin/sh
# certbot deploy hook (/etc/letsencrypt/renewal-hooks/deploy/adjutant.sh): after a certificate
# is issued or renewed, give the daemon's SMTP listener a copy it may read (root:ssl-cert, key
# 0640, in /etc/adjutant/tls) and have it re-read the files (systemctl reload adjutant: SIGHUP),
# and reload nginx. certbot sets RENEWED_LINEAGE to /etc/letsencrypt/live/DOMAIN.
set -eu
: "${RENEWED_LINEAGE:?run by certbot, or set RENEWED_LINEAGE=/etc/letsencrypt/live/DOMAIN}"
dest=/etc/adjutant/tls
install -d -m 0750 -o root -g ssl-cert "$dest"
install -m 0644 -o root -g ssl-cert "$RENEWED_LINEAGE/fullchain.pem" "$dest/fullchain.pem.new"
install -m 0640 -o root -g ssl-cert "$RENEWED_LINEAGE/privkey.pem" "$dest/privkey.pem.new"
mv -f "$dest/fullchain.pem.new" "$dest/fullchain.pem"
mv -f "$dest/privkey.pem.new" "$dest/privkey.pem"
if command -v systemctl >/dev/null && systemctl is-active --quiet adjutant 2>/dev/null; then
  systemctl reload adjutant
fi
if command -v systemctl >/dev/null && systemctl is-active --quiet nginx 2>/dev/null; then
  systemctl reload nginx
fi
