#!/usr/bin/python3
"""SMTP load client (python3 smtplib): sends N small messages over C connections.

Each message has a unique Message-ID <PREFIX-I@load.test> and a distinct sender sI@example.org.
With --acked FILE, the Message-ID of every message that got a 250 is appended to FILE (flushed at
once), so a test can check what was acknowledged when the server is killed. Errors end the
connection's thread (the rest go on). Prints "sent=N acked=A seconds=S rate=R" on stdout.
"""
import argparse
import smtplib
import threading
import time

p = argparse.ArgumentParser()
p.add_argument("--host", default="127.0.0.1")
p.add_argument("--port", type=int, required=True)
p.add_argument("--count", type=int, default=1000)
p.add_argument("--conns", type=int, default=4)
p.add_argument("--prefix", default="load")
p.add_argument("--to", default="orders@pbm.example.net")
p.add_argument("--acked")
a = p.parse_args()

lock = threading.Lock()
acked = []
out = open(a.acked, "a") if a.acked else None


def message(i):
    mid = "%s-%d@load.test" % (a.prefix, i)
    body = (
        "From: Player %d <s%d@example.org>\r\nTo: %s\r\nSubject: load %d\r\n"
        "Message-ID: <%s>\r\nDate: Sat, 21 Nov 2026 10:00:00 +0000\r\n\r\n"
        "Hello, this is message %d.\r\n" % (i, i, a.to, i, mid, i)
    )
    return mid, "s%d@example.org" % i, body


def worker(k):
    try:
        s = smtplib.SMTP(a.host, a.port, timeout=30)
        s.ehlo("load.test")
        for i in range(k, a.count, a.conns):
            mid, sender, body = message(i)
            s.sendmail(sender, [a.to], body)
            with lock:
                acked.append(mid)
                if out:
                    out.write(mid + "\n")
                    out.flush()
        s.quit()
    except Exception:
        pass


t0 = time.monotonic()
threads = [threading.Thread(target=worker, args=(k,)) for k in range(a.conns)]
for t in threads:
    t.start()
for t in threads:
    t.join()
dt = time.monotonic() - t0
print("sent=%d acked=%d seconds=%.3f rate=%.1f" % (a.count, len(acked), dt, len(acked) / dt))
