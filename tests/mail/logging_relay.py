#!/usr/bin/python3
"""An SMTP relay for tests/mail/multi_daemon_test.cc, built on aiosmtpd: every accepted message
is written to MAILDIR (aiosmtpd's Mailbox handler) and one line is appended to LOG before the
250 is sent: "<unix time with microseconds>\t<Message-ID>\t<Subject>\t<In-Reply-To>".

Usage: logging_relay.py PORT MAILDIR LOG. Runs until SIGTERM.
"""
import email
import email.policy
import os
import signal
import sys
import threading
import time

from aiosmtpd.controller import Controller
from aiosmtpd.handlers import Mailbox

port, maildir, log_path = int(sys.argv[1]), sys.argv[2], sys.argv[3]
lock = threading.Lock()


class Logging(Mailbox):
    async def handle_DATA(self, server, session, envelope):
        msg = email.message_from_bytes(envelope.original_content or envelope.content,
                                       policy=email.policy.compat32)
        fields = [msg.get(h, "").replace("\t", " ").replace("\r", " ").replace("\n", " ").strip()
                  for h in ("Message-ID", "Subject", "In-Reply-To")]
        reply = await super().handle_DATA(server, session, envelope)
        with lock, open(log_path, "a") as f:
            f.write("%.6f\t%s\n" % (time.time(), "\t".join(fields)))
            f.flush()
            os.fsync(f.fileno())
        return reply


controller = Controller(Logging(maildir), hostname="127.0.0.1", port=port)
stop = threading.Event()
signal.signal(signal.SIGTERM, lambda *_: stop.set())
controller.start()
stop.wait()
controller.stop()
