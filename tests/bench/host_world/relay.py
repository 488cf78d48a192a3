#!/usr/bin/python3
"""The relay of scripts/bench-host.sh, built on aiosmtpd: accepts every message on loopback,
keeps none of it, and appends one line per message to LOG before the 250 is sent:
"<unix time with microseconds>\t<bytes>\t<Subject>". Lines are flushed at least once a second.

Usage: relay.py PORT LOG. Runs until SIGTERM.
"""
import email.parser
import email.policy
import signal
import sys
import threading
import time

from aiosmtpd.controller import Controller

port, log_path = int(sys.argv[1]), sys.argv[2]
log = open(log_path, "a", buffering=1 << 16)
lock = threading.Lock()
headers = email.parser.BytesHeaderParser(policy=email.policy.compat32)


class Counting:
    async def handle_DATA(self, server, session, envelope):
        data = envelope.original_content or envelope.content
        # The header block only: parsing the whole message in Python (0.67 ms for a report with
        # its map, 140 kB) was about a fifth of the relay's CPU, work no real relay does.
        end = data.find(b"\r\n\r\n")
        head = data if end < 0 else data[:end + 4]
        subject = (headers.parsebytes(head).get("Subject", "") or "").replace("\t", " ")
        subject = subject.replace("\r", " ").replace("\n", " ").strip()
        with lock:
            log.write("%.6f\t%d\t%s\n" % (time.time(), len(data), subject))
        return "250 OK"


def flush():
    while True:
        time.sleep(1)
        with lock:
            log.flush()


controller = Controller(Counting(), hostname="127.0.0.1", port=port,
                        data_size_limit=64 << 20)
stop = threading.Event()
signal.signal(signal.SIGTERM, lambda *_: stop.set())
threading.Thread(target=flush, daemon=True).start()
controller.start()
stop.wait()
controller.stop()
with lock:
    log.flush()
