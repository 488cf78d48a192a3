#!/usr/bin/env python3
"""Guesses per second one client can make against a running `adjutant serve`, per channel.

A guess is a request whose secret or token was actually checked and found wrong (any answer but
429); a 429 (locked out) tests nothing. Each channel runs for SECONDS over CONNS keep-alive
connections from one address (127.0.0.1), every request a different wrong secret:

  orders   POST /api/games/G/orders?check=1   order file with PLAYER <code> <wrong secret>
  basic    GET  /api/games/G/reports/<code>   Authorization: Basic <code>:<wrong secret>
  signin   POST /games/G/login                the sign-in form (with its CSRF cookie and field)
  bearer   GET  /api/games/G/reports/<code>   Authorization: Bearer <random wrong token>
  gm       POST /api/games/G/pause            Authorization: Bearer <wrong GM token>

Usage: bench-guessing.py PORT GAME PLAYER [SECONDS] [CONNS] [CHANNEL...] (default: all five).
Prints one line per channel.
Asserts nothing (speed figures never go in tests).
"""
import base64
import http.client
import secrets
import sys
import threading
import time

port, game, player = int(sys.argv[1]), sys.argv[2], sys.argv[3]
seconds = float(sys.argv[4]) if len(sys.argv) > 4 else 5.0
conns = int(sys.argv[5]) if len(sys.argv) > 5 else 4
csrf = "0123456789abcdef0123456789abcdef"


def request(kind, n):
    guess = "guess%06d" % n
    if kind == "orders":
        body = "GAME %s\nPLAYER %s %s\nEND\n" % (game, player, guess)
        return "POST", "/api/games/%s/orders?check=1" % game, body, {"Content-Type": "text/plain"}
    if kind == "basic":
        cred = base64.b64encode(("%s:%s" % (player, guess)).encode()).decode()
        return "GET", "/api/games/%s/reports/%s" % (game, player), None, {
            "Authorization": "Basic " + cred}
    if kind == "signin":
        body = "csrf=%s&player=%s&secret=%s" % (csrf, player, guess)
        return "POST", "/games/%s/login" % game, body, {
            "Content-Type": "application/x-www-form-urlencoded", "Cookie": "adj_csrf=" + csrf}
    if kind == "bearer":
        return "GET", "/api/games/%s/reports/%s" % (game, player), None, {
            "Authorization": "Bearer " + secrets.token_hex(16)}
    if kind == "gm":
        return "POST", "/api/games/%s/pause" % game, "", {
            "Authorization": "Bearer " + secrets.token_hex(16)}
    raise ValueError(kind)


def run(kind):
    counts = {}
    lock = threading.Lock()
    stop = time.monotonic() + seconds

    def worker(wid):
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        n = wid * 10_000_000
        local = {}
        while time.monotonic() < stop:
            method, path, body, headers = request(kind, n)
            n += 1
            try:
                c.request(method, path, body=body, headers=headers)
                r = c.getresponse()
                r.read()
                local[r.status] = local.get(r.status, 0) + 1
                if r.getheader("Connection", "").lower() == "close":
                    c.close()
                    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            except (OSError, http.client.HTTPException):
                local["error"] = local.get("error", 0) + 1
                c.close()
                c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        c.close()
        with lock:
            for k, v in local.items():
                counts[k] = counts.get(k, 0) + v

    t0 = time.monotonic()
    threads = [threading.Thread(target=worker, args=(i,)) for i in range(conns)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - t0
    total = sum(v for v in counts.values())
    checked = sum(v for k, v in counts.items() if k not in (429, "error"))
    statuses = " ".join("%s:%d" % (k, v) for k, v in sorted(counts.items(), key=str))
    print("%-7s guesses/s=%9.1f  requests/s=%9.1f  guesses=%d in %.1fs  statuses: %s" %
          (kind, checked / elapsed, total / elapsed, checked, elapsed, statuses), flush=True)


for kind in sys.argv[6:] or ("orders", "basic", "signin", "bearer", "gm"):
    run(kind)
