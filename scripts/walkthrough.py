#!/usr/bin/python3
"""A six-player Dark Age game played for three turns by mail and on the web (issue 31's walk-through).

Run from anywhere:  python3 scripts/walkthrough.py [--shots DIR | --no-shots] [--keep]

What it does, against a fresh `build/adjutant serve` (temporary directory, free loopback ports,
SMTP listener on, no relay, so every outgoing mail lands in the outbox Maildir; GM token from a
random ADJUTANT_GM_TOKEN):
  1. the GM creates tests/data/e2e/six-kingdoms.json through POST /api/games with an address
     for each player, and sets an interval schedule (the deadline) through PUT .../schedule;
  2. each player reads their secret from the start mail in the outbox;
  3. three turns: NOR, HIL and EAS send orders by mail (smtplib to the SMTP listener, GAME and
     PLAYER lines from the start mail); WES, SOU and RIV sign in on the web with their secret and
     use the orders page in headless Chromium (RIV through the order builder). Turn 1 carries one
     press message (inside NOR's orders mail) and HIL's letter to the GM (a mail that is not
     orders); turn 2 the GM's press (POST .../press with the GM token). The GM runs each turn
     with POST .../turns/run;
  4. after each turn: the turn ran with battles, every player has a report mail that states the
     next deadline (the schedule's) and carries the map PNG.
  5. screenshots (JPEG) into docs/screenshots/walkthrough/: the orders page, the game page's map
     and a report mail's HTML part at 1280 and 390 px, and that mail's map PNG (under 1.2 MB).

Contract: every wait has a deadline; a failed check raises Failed and the script exits 1 with
the server log's tail. Exit 0 prints a summary (turns, battles, mails by kind, timings). The
daemon (started here, stopped by its own pid) and Chromium never outlive the script. Needs the
Debian python3 (python3-websocket for tests/support/cdp.py); another python3 re-runs this script
under /usr/bin/python3. Reuses tests/server/browser_game.py (Maildir, check, Failed) and
tests/server/browser_layout.py (the two widths, the order builder).
"""

import os
import sys

try:
    import websocket  # noqa: F401  (checked here: tests/support/cdp.py needs it)
except ImportError:
    if os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3") and \
            os.path.exists("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    raise

import argparse
import base64
import collections
import email
import email.message
import email.policy
import json
import re
import secrets
import shutil
import signal
import smtplib
import socket
import subprocess
import tempfile
import time
import urllib.request

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "support"))
sys.path.insert(0, os.path.join(ROOT, "tests", "server"))
import cdp  # noqa: E402  (tests/support/cdp.py)
import browser_layout as layout  # noqa: E402  (tests/server/browser_layout.py)
from browser_game import Failed, Maildir, api_call, check  # noqa: E402  (tests/server/browser_game.py)

BINARY = os.path.join(ROOT, "build", "adjutant")
SCENARIO = os.path.join(ROOT, "tests", "data", "e2e", "six-kingdoms.json")
SHOTS = os.path.join(ROOT, "docs", "screenshots", "walkthrough")
ORDERS_ADDRESS = "orders@marches.example"
GM_ADDRESS = "gm@marches.example"
INTERVAL = 2 * 86400  # the schedule: a turn every two days (the GM runs them early, by hand)
MAIL_TIMEOUT = 60.0
PNG_LIMIT = 1200 * 1024
JPEG_QUALITY = 70
DESKTOP_SCALE = 0.6  # desktop shots at 60 %, as docs/screenshots/ (768 px wide)
MAX_SHOT_HEIGHT = 3000  # CSS pixels of a page's top

MAIL_PLAYERS = ["NOR", "HIL", "EAS"]  # players 1-3: orders by mail
WEB_PLAYERS = ["WES", "SOU", "RIV"]  # players 4-6: the web orders page
BUILDER_PLAYER = "RIV"  # writes every line with the order builder (lines without numbers)

# The orders, turn by turn (checked against the seeded game: every line is accepted; what they
# lead to is in docs/walkthrough.md). Builder lines are (area, verb, target, count).
ORDERS = {
    1: {"NOR": ["1. LEVY WLD 3", "2. ASSAULT WLD ASH AB-1", "3. AMBUSH HOL CRG"],
        "HIL": ["1. LEVY THN 3", "2. ASSAULT THN MID AB-2", "3. DEFEND THN"],
        "EAS": ["1. LEVY ESK 3", "2. LEVY ORM 2", "3. ASSAULT ESK THN AB-1"],
        "WES": ["1. LEVY BRS 3", "2. ASSAULT BRS CAL AB-1", "3. RETREAT SAL BRS"],
        "SOU": ["1. LEVY GRS 3", "2. ASSAULT GRS CAL AB-1"],
        "RIV": [("DUN", "LEVY", "", "3"), ("DUN", "ASSAULT", "ORM", "AB-1")]},
    2: {"NOR": ["1. LEVY ASH 2", "2. ASSAULT ASH MID AB-1"],
        "HIL": ["1. INVADE MID ASH", "2. LEVY CRG 2"],
        "EAS": ["1. MOVE THN ESK AB-1", "2. ASSAULT ESK ORM AB-1"],
        "WES": ["1. LEVY BRS 2", "2. MOVE BRY BRS 1", "3. ASSAULT BRS CAL AB-1"],
        "SOU": ["1. LEVY LYN 2", "2. ASSAULT LYN CRS AB-1", "3. LEVY GRE 1"],
        "RIV": [("TOR", "MOVE", "ORM", "2"), ("DUN", "LEVY", "", "1"),
                ("DUN", "ASSAULT", "CRS", "")]},
    3: {"NOR": ["1. LEVY HOL 2", "2. MOVE FEN WLD 2", "3. PROBE WLD BRS 2"],
        "HIL": ["1. ASSAULT CRG HOL AB-1", "2. LEVY MID 1"],
        "EAS": ["1. MOVE SKR ESK 2", "2. LEVY ESK 1", "3. ASSAULT ESK ORM AB-1"],
        "WES": ["1. LEVY BRS 3", "2. MOVE BRS CAL 2"],
        "SOU": ["1. LEVY GRS 3", "2. ASSAULT GRS CAL AB-1"],
        "RIV": [("DUN", "LEVY", "", "2"), ("ORM", "ASSAULT", "ESK", "AB-1")]},
}
PRESS = "Northmark greets the five courts. Ashford will be ours by spring; Calder is yours to share."
LETTER = ("Dear GM,\n\nmay Highmoor have two more days for turn 2? The passes are snowed in.\n\n"
          "Yours, the Highmoor court\n")
GM_PRESS = ("The GM: Highmoor asked for more time. The deadline stands, as the schedule says; "
            "send your orders early and change them as often as you like.")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def mail_kind(subject):
    """The kind of an outgoing mail, from its subject (for the summary)."""
    for key, kind in (("your secret for", "start (secret)"), ("is due by", "deadline notice"),
                      ("report for", "turn report"), ("message to the GM", "letter to the GM"),
                      ("Press:", "press digest"), ("reminder", "reminder"),
                      ("Re: ", "answer to a player's mail")):
        if key in subject:
            return kind
    return "other"


class Outbox(Maildir):
    """browser_game.Maildir, plus each message's file (for its HTML part and attachments)."""

    def messages(self):
        out = super().messages()
        for name, m in self._parsed.items():
            m.setdefault("file", name)
        return out

    def raw(self, m):
        for sub in ("new", "cur"):
            path = os.path.join(self.path, sub, m["file"])
            if os.path.exists(path):
                with open(path, "rb") as f:
                    return email.message_from_binary_file(f, policy=email.policy.default)
        raise Failed("the mail %s left the outbox" % m["file"])


class Server:
    """`adjutant serve` in `workdir`; stop() ends it by its pid (SIGTERM, then SIGKILL)."""

    def __init__(self, workdir):
        self.http, self.smtp = free_port(), free_port()
        self.base = "http://127.0.0.1:%d" % self.http
        self.token = "walk-" + secrets.token_hex(16)
        self.outbox = os.path.join(workdir, "outbox")
        self.log_path = os.path.join(workdir, "serve.log")
        env = dict(os.environ, ADJUTANT_GM_TOKEN=self.token)
        for k in ("ADJUTANT_RELAY", "ADJUTANT_DB", "ADJUTANT_BASE_URL"):
            env.pop(k, None)  # no relay: the mail stays in the outbox Maildir
        self.proc = subprocess.Popen(
            [BINARY, "--db", os.path.join(workdir, "game.db"), "serve",
             "--http", "127.0.0.1:%d" % self.http, "--smtp", "127.0.0.1:%d" % self.smtp,
             "--tick", "1", "--outbox", self.outbox, "--mail-from", ORDERS_ADDRESS,
             "--gm-address", GM_ADDRESS, "--press-digest-minutes", "1"],
            stdout=open(os.path.join(workdir, "serve.out"), "wb"),
            stderr=open(self.log_path, "wb"), env=env, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(self.base + "/healthz", timeout=2) as r:
                    if r.status == 200:
                        return
            except OSError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise Failed("adjutant serve did not answer /healthz:\n" + self.log_tail())
            time.sleep(0.1)

    def log_tail(self, n=3000):
        try:
            with open(self.log_path, errors="replace") as f:
                return f.read()[-n:]
        except OSError:
            return ""

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class Walk:
    def __init__(self, args, server, browser):
        self.server, self.browser = server, browser
        self.shots = None if args.no_shots else args.shots
        self.mail = Outbox(server.outbox)
        with open(SCENARIO) as f:
            self.scenario = json.load(f)
        self.game = self.scenario["id"]
        self.names = {p["code"]: p["name"] for p in self.scenario["players"]}
        self.addr = {c: c.lower() + "@players.example" for c in self.names}
        self.secret = {}
        self.pages = {}
        self.t0 = time.monotonic()
        self.timings = []  # (what, seconds)
        self.turns = []  # per turn: {"turn", "battles", "actions", "run_ms", "deadline"}
        self.shot_files = []

    # ---- helpers ----

    def log(self, text):
        print("[walk %6.1fs] %s" % (time.monotonic() - self.t0, text), flush=True)

    def timed(self, what, fn, *a):
        t = time.monotonic()
        out = fn(*a)
        self.timings.append((what, time.monotonic() - t))
        return out

    def api(self, method, path, body=None):
        """(status, JSON) of an API call with the GM token."""
        return api_call(self.server.base + path, self.server.token, method, body, timeout=60)

    def g(self, path=""):
        return "/api/games/" + self.game + path

    def url(self, path):
        return self.server.base + "/games/" + self.game + path

    def send_mail(self, code, subject, body):
        m = email.message.EmailMessage()
        m["From"] = "%s <%s>" % (self.names[code], self.addr[code])
        m["To"] = ORDERS_ADDRESS
        m["Subject"] = subject
        m.set_content(body)
        with smtplib.SMTP("127.0.0.1", self.server.smtp, timeout=30) as s:
            refused = s.send_message(m)
        check(not refused, "the SMTP listener refused %s's mail: %s" % (code, refused))

    def shot(self, page, name, metrics):
        """A JPEG of the page's top (at most MAX_SHOT_HEIGHT CSS px) at `metrics`' width."""
        if not self.shots:
            return
        layout.set_metrics(page, metrics)
        height = page.eval("document.documentElement.scrollHeight")
        scale = DESKTOP_SCALE if metrics is layout.DESKTOP else 1
        clip = {"x": 0, "y": 0, "width": metrics["width"],
                "height": max(1, min(height, MAX_SHOT_HEIGHT)), "scale": scale}
        data = page.call("Page.captureScreenshot", {"format": "jpeg", "quality": JPEG_QUALITY,
                                                    "clip": clip, "captureBeyondViewport": True})
        path = os.path.join(self.shots, name + ".jpg")
        with open(path, "wb") as f:
            f.write(base64.b64decode(data["data"]))
        self.shot_files.append(path)

    def shot_both(self, page, name):
        self.shot(page, name + "_desktop", layout.DESKTOP)
        self.shot(page, name + "_phone", layout.PHONE)
        layout.clear_metrics(page)

    # ---- the game ----

    def create(self):
        doc = dict(self.scenario)
        doc["players"] = [dict(p, email=self.addr[p["code"]]) for p in doc["players"]]
        status, j = self.api("POST", "/api/games", {"scenario": doc})
        check(status == 201, "POST /api/games answered %s: %s" % (status, j))
        check(sorted(j.get("secrets", {})) == sorted(self.names),
              "the create answer names secrets for %s" % sorted(j.get("secrets", {})))
        status, sched = self.api("PUT", self.g("/schedule"), {
            "kind": "interval", "interval_seconds": INTERVAL, "early_when_all_in": False})
        check(status == 200 and sched.get("deadline"), "PUT schedule: %s %s" % (status, sched))
        self.log("game %s created by the API; interval schedule, turn 1 due %s"
                 % (self.game, self.utc(sched["deadline"])))
        for code, addr in self.addr.items():
            m = self.mail.wait(addr, lambda m: "your secret for" in m["subject"], "the start mail")
            found = re.search(r"PLAYER %s (\S+)" % code, m["text"])
            check(found, "%s's start mail has no PLAYER line" % code)
            self.secret[code] = found.group(1)
            check(self.secret[code] == j["secrets"][code],
                  "%s's start mail gives another secret than the API answered" % code)
            self.mail.wait(addr, lambda m: "turn 1 is due by" in m["subject"],
                           "the deadline notice")
        self.log("6 start mails (secret) and 6 deadline notices in the outbox")

    @staticmethod
    def utc(t):
        return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(t))

    def sign_in(self):
        for code in WEB_PLAYERS:
            p = self.browser.new_page(code)
            p.goto(self.url("/login"))
            status = p.submit("form[action$='/login']",
                              {"player": code, "secret": self.secret[code]})
            check(status == 200 and p.path() == "/games/%s/me" % self.game,
                  "%s signed in to %s (%s)" % (code, p.path(), status))
            self.pages[code] = p
        self.log("WES, SOU, RIV signed in on the web with the secret from their start mail")

    def mail_orders(self, turn, code):
        lines = ORDERS[turn][code]
        body = "GAME %s\nPLAYER %s %s\nTURN %d\n%s\nEND\n" % (
            self.game, code, self.secret[code], turn, "\n".join(lines))
        if turn == 1 and code == "NOR":
            body += "\nPRESS TO ALL\n%s\nENDPRESS\n" % PRESS
        self.send_mail(code, "orders for turn %d" % turn, body)
        want = "%d accepted, 0 rejected" % len(lines)
        self.mail.wait(self.addr[code], lambda m: m["subject"] == "Re: orders for turn %d" % turn
                       and want in m["text"], "the answer to the turn %d orders" % turn)

    def web_orders(self, turn, code):
        p = self.pages[code]
        p.goto(self.url("/me"))
        check(p.exists("#orders-form textarea[name=orders]"), "%s's page has no orders form" % code)
        turn_field = p.eval("document.querySelector('#orders-form input[name=turn]').value")
        check(turn_field == str(turn), "%s's orders form is for turn %s" % (code, turn_field))
        lines = ORDERS[turn][code]
        if code == BUILDER_PLAYER:
            p.wait_for("#order-builder:not([hidden])")
            p.fill("#orders-form", {"orders": ""})
            for area, verb, target, count in lines:
                err = layout.builder_add(p, area, verb, target, count)
                check(not err, "%s's builder, %s %s: %s" % (code, verb, area, err))
            written = p.eval("document.getElementById('orders').value")
            expect = [" ".join(x for x in (verb, area, target, count) if x)
                      for area, verb, target, count in lines]
            check([ln.strip() for ln in written.strip().split("\n")] == expect,
                  "%s's builder wrote %r, not %r" % (code, written, expect))
        else:
            p.fill("#orders-form", {"orders": "\n".join(lines) + "\nEND\n"})
        if turn == 2 and code == "WES" and self.shots:  # the orders page as the player sees it
            self.shot_both(p, "orders_page")
        p.submit("#orders-form", None, "button[value=submit]")
        # Stored: the answer is a redirect to the player's page with a flash line.
        said = p.text(".flash") or p.text("main") or ""
        got = re.search(r"(\d+) lines? accepted, (\d+) rejected", said)
        check(got and got.groups() == (str(len(lines)), "0"),
              "%s's turn %d orders: %s" % (code, turn, said[:300]))

    def letter_to_gm(self):
        self.send_mail("HIL", "a request", LETTER + "\nGAME %s\nPLAYER HIL %s\n"
                       % (self.game, self.secret["HIL"]))
        self.mail.wait(GM_ADDRESS, lambda m: "message to the GM from Highmoor" in m["subject"]
                       and "two more days" in m["text"], "HIL's letter forwarded to the GM")
        self.mail.wait(self.addr["HIL"], lambda m: m["subject"] == "Re: a request"
                       and "passed to the GM" in m["text"], "the answer to HIL's letter")
        status, msgs = self.api("GET", self.g("/gm/messages"))
        check(status == 200 and "two more days" in json.dumps(msgs),
              "the GM inbox (API) lacks HIL's letter: %s" % status)
        self.log("HIL's letter to the GM: forwarded to %s, in the GM inbox, HIL answered"
                 % GM_ADDRESS)

    def gm_press(self):
        status, j = self.api("POST", self.g("/press"), {"to": "ALL", "body": GM_PRESS})
        check(status == 201 and j.get("from_label") == "the GM", "GM press: %s %s" % (status, j))
        p = self.pages["SOU"]
        p.goto(self.url("/me/press"))
        check(GM_PRESS in (p.text("#press-inbox") or ""), "SOU's press page lacks the GM's press")
        self.log("GM press to ALL by the API; on SOU's press page at once")

    def submit_all(self, turn):
        for code in MAIL_PLAYERS:
            self.mail_orders(turn, code)
        for code in WEB_PLAYERS:
            self.web_orders(turn, code)
        status, subs = self.api("GET", self.g("/submissions"))
        check(status == 200 and subs.get("turn") == turn, "submissions: %s %s" % (status, subs))
        on_file = {s["player"]: s for s in subs.get("players", [])}
        for code in self.names:
            s = on_file.get(code, {})
            check(s.get("has_orders") and s.get("rejected") == 0,
                  "%s's turn %d orders on file: %s" % (code, turn, s))
        self.log("turn %d: orders on file for all six (NOR, HIL, EAS by mail; WES, SOU, RIV on "
                 "the web%s)" % (turn, ", RIV through the order builder"))

    def run_turn(self, turn):
        status, j = self.api("POST", self.g("/turns/run"), {"turn": turn})
        check(status == 200 and j.get("turn") == turn and not j.get("preview"),
              "turns/run %d: %s %s" % (turn, status, str(j)[:300]))
        check(j.get("players_without_orders") == [], "without orders: %s"
              % j.get("players_without_orders"))
        check(j.get("battles", 0) > 0, "turn %d had no battle" % turn)
        _, sched = self.api("GET", self.g("/schedule"))
        due = self.utc(sched["deadline"])
        self.turns.append({"turn": turn, "battles": j["battles"], "actions": j["actions"],
                           "run_ms": round(sum(j.get("phase_ms", {}).values()), 1),
                           "next_deadline": due})
        self.log("turn %d ran: %d actions, %d battles, %.1f ms; turn %d due %s"
                 % (turn, j["actions"], j["battles"], self.turns[-1]["run_ms"], turn + 1, due))
        sentence = "Orders for turn %d are due by %s" % (turn + 1, due)
        for code, addr in self.addr.items():
            m = self.mail.wait(addr, lambda m: m["subject"].endswith(
                "turn %d report for %s" % (turn, code)), "the turn %d report" % turn)
            check(sentence in m["text"], "%s's turn %d report does not say %r"
                  % (code, turn, sentence))
            names = [part.get_filename() for part in self.mail.raw(m).walk()]
            check("map-turn-%d.png" % turn in names, "%s's report has no map: %s" % (code, names))
        self.log("6 report mails for turn %d, each with the map and %r" % (turn, sentence))

    def mail_shots(self, turn, code):
        """The report mail's HTML part rendered in Chromium, and its map PNG."""
        m = self.mail.wait(self.addr[code], lambda m: m["subject"].endswith(
            "turn %d report for %s" % (turn, code)), "the report")
        raw = self.mail.raw(m)
        html = raw.get_body(preferencelist=("html",)).get_content()
        tmp = tempfile.NamedTemporaryFile("w", suffix=".html", delete=False, encoding="utf-8")
        with tmp:
            tmp.write(html)
        try:
            p = self.browser.new_page("mail")
            p.goto("file://" + tmp.name)
            layout.set_metrics(p, layout.PHONE)
            m = layout.measure(p)  # the mail is laid out at the phone's width, not shrunk
            check(m["inner"] == layout.PHONE["width"] and m["scroll"] <= m["inner"],
                  "the report mail's HTML at %d px: %s" % (layout.PHONE["width"], m))
            self.shot_both(p, "report_mail")
        finally:
            os.unlink(tmp.name)
        for part in raw.walk():
            if part.get_filename() == "map-turn-%d.png" % turn:
                data = part.get_payload(decode=True)
                if len(data) < PNG_LIMIT:
                    path = os.path.join(self.shots, "report_mail_map.png")
                    with open(path, "wb") as f:
                        f.write(data)
                    self.shot_files.append(path)
                else:
                    self.log("the map PNG is %d KB: not saved" % (len(data) // 1024))

    def map_shots(self, turn):
        """The game page (the map of the open turn, the roundup, the charts) and WES's report of
        `turn` (the map with WES's moves, battles and the attacks on it as arrows)."""
        p = self.pages["WES"]
        for path, name in (("", "game_map"), ("/me/reports/%d" % turn, "report_page")):
            p.goto(self.url(path))
            check(p.exists(".map-box svg.map"), "%s shows no map" % path)
            self.shot_both(p, name)

    def press_by_mail(self):
        """The GM's press reaches a player in their next digest (--press-digest-minutes 1)."""
        for addr in self.addr.values():
            self.mail.wait(addr, lambda m: "Press:" in m["subject"] and GM_PRESS[:40]
                           in " ".join(m["text"].split()), "the GM's press by mail", timeout=120)
        self.log("the GM's press reached all six players in their next press digest")

    # ---- the whole walk ----

    def run(self):
        self.timed("create the game, start mails", self.create)
        self.timed("sign in on the web", self.sign_in)
        for turn in (1, 2, 3):
            if turn == 2:
                self.timed("GM press", self.gm_press)
            self.timed("turn %d orders" % turn, self.submit_all, turn)
            if turn == 1:
                self.timed("letter to the GM", self.letter_to_gm)
                self.mail.wait(self.addr["WES"], lambda m: "Press:" in m["subject"]
                               and "Northmark greets" in " ".join(m["text"].split()), "NOR's press by mail")
                self.log("NOR's press (in the orders mail) mailed to the five others")
            self.timed("turn %d run and reports" % turn, self.run_turn, turn)
        if self.shots:
            self.timed("screenshots", lambda: (self.map_shots(3), self.mail_shots(3, "NOR")))
        self.timed("GM press digest", self.press_by_mail)

    def summary(self):
        kinds = collections.Counter(mail_kind(m["subject"]) for m in self.mail.messages())
        out = {"game": self.game, "seconds": round(time.monotonic() - self.t0, 1),
               "turns": self.turns, "mails": dict(sorted(kinds.items())),
               "mails_total": sum(kinds.values()),
               "timings": {w: round(s, 1) for w, s in self.timings},
               "screenshots": {os.path.relpath(p, ROOT): os.path.getsize(p)
                               for p in self.shot_files}}
        return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shots", default=SHOTS, help="directory for the screenshots (default %s)"
                    % os.path.relpath(SHOTS, ROOT))
    ap.add_argument("--no-shots", action="store_true", help="take no screenshots")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = ap.parse_args()
    check(os.access(BINARY, os.X_OK), "no %s: build it first (README.md)" % BINARY)
    if not args.no_shots:
        os.makedirs(args.shots, exist_ok=True)
    cdp.close_on_sigterm()
    workdir = tempfile.mkdtemp(prefix="adj-walk-")
    server = browser = None
    code = 1
    try:
        server = Server(workdir)
        browser = cdp.Browser(timeout=60, log_path=os.path.join(workdir, "chromium.log"))
        walk = Walk(args, server, browser)
        walk.run()
        print(json.dumps(walk.summary(), indent=1))
        code = 0
    except (Failed, cdp.CdpError) as e:
        print("walkthrough FAILED: %s" % e, file=sys.stderr)
        if server:
            print("server log (tail):\n" + server.log_tail(), file=sys.stderr)
    finally:
        if browser:
            browser.close()
        if server:
            server.stop()
        if args.keep or code:
            print("files kept in " + workdir, file=sys.stderr)
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    return code


if __name__ == "__main__":
    sys.exit(main())
