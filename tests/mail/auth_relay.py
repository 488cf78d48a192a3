#!/usr/bin/python3
"""An SMTP relay that requires AUTH (PLAIN or LOGIN, over plain TCP) before MAIL FROM, built on
aiosmtpd for tests/mail/outbox_test.cc and cli_mail_test.cc.

Usage: auth_relay.py PORT MAILDIR USER PASSWORD
Accepted messages go to MAILDIR (aiosmtpd's Mailbox handler). Wrong credentials get 535, MAIL
before AUTH gets 530. Runs until SIGTERM.
"""
import signal
import sys
import threading

from aiosmtpd.controller import Controller
from aiosmtpd.handlers import Mailbox
from aiosmtpd.smtp import AuthResult, LoginPassword

port, maildir = int(sys.argv[1]), sys.argv[2]
user, password = sys.argv[3].encode(), sys.argv[4].encode()


def authenticator(server, session, envelope, mechanism, auth_data):
    ok = (isinstance(auth_data, LoginPassword) and auth_data.login == user
          and auth_data.password == password)
    return AuthResult(success=ok, handled=False)


controller = Controller(Mailbox(maildir), hostname="127.0.0.1", port=port,
                        authenticator=authenticator, auth_required=True,
                        auth_require_tls=False,
                        ready_timeout=60)  # a loaded machine (the suite at -j8) starts slowly
stop = threading.Event()
signal.signal(signal.SIGTERM, lambda *_: stop.set())
controller.start()
stop.wait()
controller.stop()
