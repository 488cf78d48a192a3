#!/usr/bin/env python3
"""Writes the generated seeds of tests/fuzz/corpus: html/ (HTML mail bodies), smtp/ (SMTP
sessions in the harness's chunked format: each read is one length byte, value n-1 for n bytes,
then the bytes) and http/ (raw HTTP/1.1 requests). Rerun after changing a seed here; the other
corpus directories hold copies of files from schemas/ and tests/data/."""
import os

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
GM = "fuzz-gm-token"  # the harness's GM token (fuzz_http.cc)
ORDERS = "GAME britain-1\nPLAYER WSX cerdic\nTURN 1\n1. LEVY HAM 3\n2. MOVE HAM OXF 4\nEND\n"


def write(sub, name, data):
    os.makedirs(os.path.join(HERE, sub), exist_ok=True)
    with open(os.path.join(HERE, sub, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def chunked(session, size):
    out = bytearray()
    for i in range(0, len(session), size):
        part = session[i:i + size]
        out.append(len(part) - 1)
        out += part
    return bytes(out)


# HTML bodies.
write("html", "outlook.html", "<html><head><style>div{x:y}</style><title>t</title></head><body>"
      "<div>GAME&nbsp;britain-1<br>PLAYER GWN cadwallon<br>LEVY GWY 2</div><!-- sig -->"
      "<p>a &amp; b &lt;c&gt; &#233; &#x1F600; &quot;q&apos;</p></body></html>")
write("html", "table.html", "<table><tr><td>1. MOVE</td><td>HAM OXF</td></tr><tr><td>END"
      "</td></tr></table><script>if (a < b) x();</script><pre>  keep\n\n\n\nlines  </pre>")
write("html", "broken.html", "<div <<< &#99999999; &unknown; <!-- never closed <br/ <li>x")

# SMTP sessions.
crlf = lambda lines: "".join(l + "\r\n" for l in lines).encode()
msg = ["From: Ann <ann@example.org>", "To: game@pbm.test", "Subject: orders", "",
       ORDERS.replace("\n", "\r\n").rstrip("\r\n"), "..leading dot", "."]
full = crlf(["EHLO client.test", "MAIL FROM:<ann@example.org> SIZE=300 BODY=8BITMIME",
             "RCPT TO:<game@pbm.test>", "DATA"] + msg + ["QUIT"])
write("smtp", "session.bin", chunked(full, 64))
write("smtp", "session_split.bin", chunked(full, 7))
piped = crlf(["HELO x", "MAIL FROM:<>", "RCPT TO:<nobody@pbm.test>", "RCPT TO:<game@pbm.test>",
              "RCPT TO:<game2@pbm.test>", "RCPT TO:<game3@pbm.test>", "RCPT TO:<game4@pbm.test>",
              "DATA", "x" * 300, ".", "RSET", "VRFY ann", "EXPN x", "STARTTLS", "NOOP",
              "MAIL FROM:<a@b> SIZE=99999999", "BOGUS", "DATA", "QUIT"])
write("smtp", "pipelined.bin", chunked(piped, 64))

# HTTP requests.
req = lambda s: s.replace("\n", "\r\n").encode()
write("http", "get_pages.txt", req(
    "GET /healthz HTTP/1.1\nHost: a\n\n"
    "GET /games/britain-1?turn=1 HTTP/1.1\nHost: a\n\n"
    "GET /games/britain-1/map.svg HTTP/1.1\nHost: a\n\n"
    "GET /metrics HTTP/1.1\nHost: a\nConnection: close\n\n"))
write("http", "api_check_orders.txt", req(
    "POST /api/games/britain-1/orders?check=1 HTTP/1.1\nHost: a\nContent-Type: text/plain\n"
    "Content-Length: %d\n\n" % len(ORDERS)) + ORDERS.encode())
write("http", "gm_api.txt", req(
    "GET /api/games HTTP/1.1\nHost: a\nAuthorization: Bearer %s\n\n"
    "GET /api/games/britain-1/players/WSX/token HTTP/1.1\nAuthorization: Bearer %s\n\n"
    "POST /api/games/britain-1/pause HTTP/1.1\nAuthorization: Bearer %s\nContent-Length: 0\n\n"
    % (GM, GM, GM)))
form = "token=x&code=WSX&secret=cerdic"
write("http", "player_login.txt", req(
    "POST /games/britain-1/login HTTP/1.1\nHost: a\nOrigin: http://adj.test\n"
    "Content-Type: application/x-www-form-urlencoded\nCookie: a=b; adj_csrf=x\n"
    "Content-Length: %d\n\n" % len(form)) + form.encode())
body = ("--XyZ\r\nContent-Disposition: form-data; name=\"orders\"; filename=\"o.txt\"\r\n"
        "Content-Type: text/plain\r\n\r\n" + ORDERS + "\r\n--XyZ--\r\n")
write("http", "multipart_orders.txt", req(
    "POST /games/britain-1/me/orders HTTP/1.1\nHost: a\n"
    "Content-Type: multipart/form-data; boundary=XyZ\nTransfer-Encoding: chunked\n\n")
    + b"%x\r\n" % len(body) + body.encode() + b"\r\n0\r\n\r\n")
