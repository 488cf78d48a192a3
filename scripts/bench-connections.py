#!/usr/bin/env python3
"""Connection-starvation figures against a running `adjutant serve` (see bench-connections.sh).

  idle   --http PORT [--from-addrs N] [--max M] [--step S]
         Opens idle TCP connections to the HTTP port in steps of S (from 127.0.0.2 .. 127.0.0.(1+N),
         round robin) and after each step asks GET /healthz over a new connection from 127.0.0.1.
         Prints the number of idle connections held when /healthz first failed (or "none" up to M),
         and how many of the idle connections the server had closed or refused by then.
  smtp-data --smtp PORT --pid PID [--sessions K] [--bytes B]
         Opens K SMTP sessions, each sends B bytes of DATA without the final "." and holds; prints
         the daemon's RSS (VmRSS) before and while they are held, and the difference.
Asserts nothing; prints key=value lines.
"""
import argparse, resource, socket, sys, time


def raise_nofile():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def healthz(port, timeout=3.0):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout, source_address=("127.0.0.1", 0))
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        data = b""
        while True:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
        s.close()
        line = data.split(b"\r\n", 1)[0].decode("latin-1")
        return line.split(" ")[1] if line.startswith("HTTP/") else "closed"
    except OSError as e:
        return "error:" + type(e).__name__


def alive(s):
    """False when the peer closed (or refused with a response) the idle connection."""
    s.setblocking(False)
    try:
        d = s.recv(1, socket.MSG_PEEK)
        return False  # EOF, or bytes (a 503/421): refused
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        s.setblocking(True)


def idle(args):
    raise_nofile()
    held = []
    failed_at = None
    status = "200"
    n = 0
    while n < args.max:
        for _ in range(args.step):
            src = "127.0.0.%d" % (2 + n % args.from_addrs)
            try:
                s = socket.create_connection(("127.0.0.1", args.http), 3, source_address=(src, 0))
                held.append(s)
            except OSError:
                pass
            n += 1
        time.sleep(0.05)
        status = healthz(args.http)
        if status != "200":
            failed_at = n
            break
    closed = sum(0 if alive(s) else 1 for s in held)
    print("idle_attempted=%d idle_from_addrs=%d healthz_failed_at=%s healthz_status=%s "
          "idle_refused_or_closed=%d" % (n, args.from_addrs, failed_at if failed_at else "none",
                                         status, closed))
    for s in held:
        s.close()


def rss_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def smtp_data(args):
    raise_nofile()
    before = rss_kb(args.pid)
    socks = []
    refused = 0
    chunk = (b"x" * 998 + b"\r\n") * 64
    for i in range(args.sessions):
        s = socket.create_connection(("127.0.0.1", args.smtp), 10,
                                     source_address=("127.0.0.%d" % (2 + i % 50), 0))
        f = s.makefile("rb")
        f.readline()
        s.sendall(b"EHLO bench\r\n")
        while True:
            l = f.readline()
            if not l or l[3:4] != b"-":
                break
        s.sendall(b"MAIL FROM:<a@b.example>\r\n"); f.readline()
        s.sendall(b"RCPT TO:<orders@adjutant.example>\r\n"); f.readline()
        s.sendall(b"DATA\r\n")
        r = f.readline()
        if not r.startswith(b"354"):
            refused += 1
            socks.append(s)
            continue
        s.sendall(b"Subject: bench\r\n\r\n")
        sent = 0
        try:
            while sent < args.bytes:
                s.sendall(chunk)
                sent += len(chunk)
        except OSError:
            refused += 1
        socks.append(s)
    time.sleep(2)
    during = rss_kb(args.pid)
    print("smtp_sessions=%d data_bytes_each=%d rss_before_kb=%d rss_during_kb=%d rss_added_mb=%.1f "
          "data_refused=%d" % (args.sessions, args.bytes, before, during, (during - before) / 1024.0,
                               refused))
    for s in socks:
        s.close()


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("idle")
    a.add_argument("--http", type=int, required=True)
    a.add_argument("--from-addrs", type=int, default=1)
    a.add_argument("--max", type=int, default=5000)
    a.add_argument("--step", type=int, default=100)
    b = sub.add_parser("smtp-data")
    b.add_argument("--smtp", type=int, required=True)
    b.add_argument("--pid", type=int, required=True)
    b.add_argument("--sessions", type=int, default=40)
    b.add_argument("--bytes", type=int, default=10_000_000)
    args = p.parse_args()
    {"idle": idle, "smtp-data": smtp_data}[args.cmd](args)


if __name__ == "__main__":
    main()
