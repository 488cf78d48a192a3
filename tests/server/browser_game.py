#!/usr/bin/python3
"""The issue's closing scenario in a real browser: a three-player game from sign-up through a
takeover to a victory, with press, against a running `adjutant serve`.

Four people and the GM, each in their own browser context (own cookies), do everything through
the server-rendered pages; what the game mails them (secrets, sign-in links, press, takeover
offers, standings) is read from the outbox Maildir. Selectors are the form ids, field names and
section ids the pages promise (agreed for issue 11), so the pages may change around them.

The scenario is a list of steps. Each step passes, fails, is "unavailable" (a route of the contract
answers 404, or a form/section/field it names is missing: the feature is not built yet) or is
skipped because a step it needs did not pass. Where a contract feature is missing and the game
can still go on the old way (no sign-up: the GM issues sign-in links; no confirmation page: the
turn just runs), the scenario goes on, so every step that can run does. A failed step ends the
scenario (what follows would test a broken state). With --strict (or ADJ_E2E_STRICT=1) an
unavailable step counts as failed and no fallback is used.

Prints one JSON object: {"strict", "steps": [{"name", "status", "detail", "seconds"}], "passed",
"failed", "unavailable", "skipped", "game"}, and each step as it ends on stderr. Exit code 0
unless a step failed. tests/server/web_game_browser_test.cc runs it; by hand, against a daemon
started with ADJUTANT_GM_TOKEN set and no relay:
  /usr/bin/python3 tests/server/browser_game.py --base http://127.0.0.1:8080 \
      --gm-token "$ADJUTANT_GM_TOKEN" --outbox <db dir>/outbox \
      --scenario tests/data/e2e/three-kingdoms.json [--strict] [--shots DIR]
"""

import argparse
import email
import email.policy
import email.utils
import json
import os
import re
import sys
import time
import traceback
import urllib.error
import urllib.request

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import cdp  # noqa: E402  (tests/support/cdp.py)
import browser_layout as layout  # noqa: E402  (tests/server/browser_layout.py)

MAIL_TIMEOUT = 60.0  # seconds to wait for a message the game sends (delivered every ~2 s; press
# digests are gathered every 10 s, and a loaded machine (ctest -j3) adds to both)


class Unavailable(Exception):
    """A route or form of the contract is missing: the feature is not built yet."""


class Failed(Exception):
    """The feature is there but does the wrong thing."""


def api_call(url, token, method, body=None, timeout=30):
    """(status, JSON or text) of a JSON API call with `token` as its bearer token."""
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method)
    req.add_header("Authorization", "Bearer " + token)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            status, raw = r.status, r.read()
    except urllib.error.HTTPError as e:
        status, raw = e.code, e.read()
    try:
        return status, json.loads(raw)
    except ValueError:
        return status, raw.decode("utf-8", "replace")


def check(cond, what):
    if not cond:
        raise Failed(what)


# ---- people and the game ----

PEOPLE = {
    # name: (address, preferences, expected kingdom)
    "ann": ("ann@players.example", "NOR EST", "NOR"),
    "bob": ("bob@players.example", "EST, NOR", "EST"),
    "cat": ("cat@players.example", "WES", "WES"),
}
STANDBY = ("dan", "dan@players.example")
INVITED = "eve@players.example"
ANN_NEW = "ann.new@players.example"
KINGDOM_NAMES = {"NOR": "Northmark", "EST": "Eastmark", "WES": "Westmark"}
ORDERS = {  # two holding orders, valid every turn (DEFEND costs nothing)
    "NOR": "1. DEFEND NHL\n2. DEFEND NVL\nEND\n",
    "EST": "1. DEFEND EFN\n2. DEFEND EDW\nEND\n",
    "WES": "1. DEFEND WFR\n2. DEFEND WMO\nEND\n",
}
WINNER = "NOR"  # most victory points at the start; nobody attacks, so still at the last turn
LAST_TURN = 4
PUBLIC_PRESS = "Greetings to every court from Northmark: let the Heartland stay at peace."
PRIVATE_PRESS = "Eastmark, a word for you alone: Westmark has gone quiet."
ANON_PRESS = "Northmark: someone is watching your northern hills."


class Maildir:
    """The outbox Maildir the daemon writes; messages parsed with the email module."""

    def __init__(self, path):
        self.path = path
        self._parsed = {}  # file name -> message (a delivered file does not change)

    def messages(self):
        out = []
        for sub in ("new", "cur"):
            d = os.path.join(self.path, sub)
            try:
                names = sorted(os.listdir(d))
            except FileNotFoundError:
                continue
            for n in names:
                if n not in self._parsed:
                    try:
                        with open(os.path.join(d, n), "rb") as f:
                            msg = email.message_from_binary_file(f, policy=email.policy.default)
                    except OSError:
                        continue
                    body = msg.get_body(preferencelist=("plain", "html"))
                    to = [a.lower() for _, a in email.utils.getaddresses(msg.get_all("To", []))]
                    self._parsed[n] = {
                        "to": ", ".join(to), "rcpt": to, "subject": str(msg.get("Subject", "")),
                        "from": str(msg.get("From", "")),
                        "text": body.get_content() if body is not None else "",
                        "headers": {k.lower(): str(v) for k, v in msg.items()}}
                out.append(self._parsed[n])
        return out

    def to(self, address):
        return [m for m in self.messages() if address.lower() in m["rcpt"]]

    def wait(self, address, pred, what, timeout=MAIL_TIMEOUT):
        """The first message to `address` for which pred(message) holds; Failed at the deadline."""
        deadline = time.monotonic() + timeout
        while True:
            for m in self.to(address):
                if pred(m):
                    return m
            if time.monotonic() > deadline:
                got = [m["subject"] for m in self.to(address)]
                raise Failed("no mail to %s with %s within %.0f s (got: %s)"
                             % (address, what, timeout, got))
            time.sleep(0.2)


class Game:
    def __init__(self, args):
        self.base = args.base.rstrip("/")
        self.gm_token = args.gm_token
        self.strict = args.strict
        self.mail = Maildir(args.outbox)
        self.shots = args.shots
        self.profile = args.profile or None
        with open(args.scenario) as f:
            self.scenario = json.load(f)
        self.game = self.scenario["id"]
        self.steps = []
        self.passed = set()
        self.browser = None
        self.gm = None
        self.pages = {}  # person -> Page
        self.kingdom = {}  # person -> code
        self.links = {}  # person -> sign-in link
        self.addr = {who: v[0] for who, v in PEOPLE.items()}  # person -> current address
        self.addr[STANDBY[0]] = STANDBY[1]
        self.caps = {}  # optional features found: name -> bool
        self.stopped = None
        self.after_run_path = ""
        self.confirmed = {}  # turn -> whether the GM was asked to confirm
        self.takeover_code = ""
        self.anon = None  # a browser context with no cookies, made by the first layout tour

    # ---- step machinery ----

    def step(self, name, fn, needs=()):
        if self.stopped:
            self._record(name, "skipped", "the scenario stopped at " + self.stopped, 0)
            return
        missing = [n for n in needs if n not in self.passed]
        if missing:
            self._record(name, "skipped", "needs " + ", ".join(missing), 0)
            return
        t0 = time.monotonic()
        try:
            detail = fn() or ""
            self._record(name, "passed", detail, time.monotonic() - t0)
            self.passed.add(name)
        except Unavailable as e:
            if self.strict:
                self._record(name, "failed", "not yet available: %s (%s)" % (name, e),
                             time.monotonic() - t0)
                self.stopped = name
            else:
                self._record(name, "unavailable", "not yet available: %s (%s)" % (name, e),
                             time.monotonic() - t0)
        except (Failed, cdp.CdpError) as e:
            self._record(name, "failed", str(e) + self._where(), time.monotonic() - t0)
            self.stopped = name
        except Exception as e:  # a bug in the scenario or the harness: keep the trace
            self._record(name, "failed", "%s: %s\n%s" % (type(e).__name__, e,
                                                          traceback.format_exc(limit=4)),
                         time.monotonic() - t0)
            self.stopped = name
        except SystemExit:  # SIGTERM: the test's deadline ran out during this step
            self._record(name, "failed", "stopped by SIGTERM (the test's deadline) after %.1f s "
                         "in this step" % (time.monotonic() - t0), time.monotonic() - t0)
            self.stopped = name
            raise

    def _where(self):
        out = []
        for who, p in [("gm", self.gm)] + list(self.pages.items()):
            if p is None:
                continue
            try:
                out.append("%s at %s: %s" % (who, p.path(), (p.text("main") or p.text() or "")
                                             .strip().replace("\n", " | ")[:400]))
            except Exception:
                pass
        return ("\n" + "\n".join(out)) if out else ""

    def _record(self, name, status, detail, seconds):
        self.steps.append({"name": name, "status": status, "detail": detail,
                           "seconds": round(seconds, 2)})
        print("[e2e] %-44s %s%s (%.1f s)" % (name, status, (": " + detail.split("\n")[0][:160])
                                             if detail else "", seconds),
              file=sys.stderr, flush=True)

    def feature(self, name, available, detail="", needs=()):
        """A contract feature that is either there or not; not there = unavailable."""
        self.caps[name] = bool(available)
        def probe():
            if not available:
                raise Unavailable(detail or "missing")
            return detail
        self.step(name, probe, needs)

    # ---- helpers ----

    def url(self, path):
        return self.base + path

    def g(self, path=""):
        return "/games/" + self.game + path

    def api(self, method, path, body=None, token=None):
        """(status, JSON or text) of an API call; the GM token unless `token` is given."""
        return api_call(self.url(path), token or self.gm_token, method, body)

    def game_json(self):
        status, j = self.api("GET", "/api/games/" + self.game)
        check(status == 200 and isinstance(j, dict), "GET /api/games/%s: %s" % (self.game, status))
        return j

    def open_page(self, page, path, what):
        """Loads a page of the contract; 404 means the feature is not built yet."""
        status = page.goto(self.url(path))
        if status == 404:
            raise Unavailable("%s answers 404 (%s)" % (path, what))
        check(status == 200, "%s answered %s" % (path, status))

    def need(self, page, selector, what):
        if not page.exists(selector):
            raise Unavailable("no %s on %s (%s)" % (selector, page.path(), what))

    def form(self, page, contract_id, legacy):
        """The contract's form, or (not strict) the form the page had before the contract."""
        if page.exists("#" + contract_id):
            return "#" + contract_id
        if not self.strict and legacy and page.exists(legacy):
            self.caps["legacy:" + contract_id] = True
            return legacy
        raise Unavailable("no form #%s on %s" % (contract_id, page.path()))

    def shot(self, page, name):
        if self.shots:
            page.screenshot(os.path.join(self.shots, "e2e_" + name + ".png"))

    def submit_ok(self, page, form, fields, what, button=None):
        status = page.submit(form, fields, button)
        if status == 404:
            raise Unavailable("%s: the form posts to a route that answers 404" % what)
        said = page.text() or ""
        if status >= 400 and "not available yet" in said:
            raise Unavailable("%s: %s" % (what, said.strip().replace("\n", " ")[:200]))
        check(status < 400, "%s answered %s: %s" % (what, status,
                                                    (page.text("main") or page.text())[:300]))
        return status

    # ---- the steps ----

    def run(self):
        self.browser = cdp.Browser(timeout=60, profile_dir=self.profile)
        try:
            self.gm = self.browser.new_page("gm")
            for who in list(PEOPLE) + [STANDBY[0]]:
                self.pages[who] = self.browser.new_page(who)
            self._scenario()
        finally:
            self.browser.close()

    def _scenario(self):
        S = self.step
        S("gm signs in", self.gm_sign_in)
        S("gm creates the game on the web", self.gm_create, needs=["gm signs in"])
        S("gm sets missed turns before civil disorder", self.gm_attendance_options,
          needs=["gm creates the game on the web"])
        S("players join on the web with preferences", self.players_join,
          needs=["create form: open for sign-ups"])
        S("gm invites a player by address", self.gm_invites,
          needs=["create form: open for sign-ups"])
        S("phone and desktop: sign-up pages", self.layout_signup,
          needs=["players join on the web with preferences"])
        S("gm approves the sign-ups", self.gm_approves,
          needs=["players join on the web with preferences"])
        S("gm starts the game (kingdoms assigned)", self.gm_starts,
          needs=["players join on the web with preferences"])
        S("players get their secret and link by mail", self.players_mail_links,
          needs=["gm starts the game (kingdoms assigned)"])
        if not self.strict and "players get their secret and link by mail" not in self.passed:
            S("gm issues sign-in links (no sign-up yet)", self.gm_issues_links,
              needs=["gm creates the game on the web"])
        S("players sign in with their link", self.players_sign_in,
          needs=["gm creates the game on the web"])
        S("players exchange press on the web", self.press,
          needs=["players sign in with their link"])
        S("press is mailed to its recipients", self.press_mail,
          needs=["players exchange press on the web",
                 "players get their secret and link by mail"])
        S("gm allows anonymous press", self.gm_press_options,
          needs=["players exchange press on the web"])
        S("anonymous press hides the sender", self.anonymous_press,
          needs=["gm allows anonymous press"])
        S("orders form keeps text and marks rejected lines", self.orders_errors,
          needs=["players sign in with their link"])
        S("order builder writes lines the server accepts", self.order_builder,
          needs=["players sign in with their link"])
        S("turn 1: everyone submits orders on the web",
          lambda: self.submit_orders(1, ["ann", "bob", "cat"]),
          needs=["players sign in with their link"])
        S("orders on record shown on the player page", self.on_record,
          needs=["turn 1: everyone submits orders on the web"])
        S("times in UTC and in the reader's own zone", self.local_times,
          needs=["turn 1: everyone submits orders on the web"])
        S("turn 1: gm runs the turn", lambda: self.gm_run(1, expect_missing=[]),
          needs=["turn 1: everyone submits orders on the web"])
        S("reloading the run answer runs nothing (PRG)", self.reload_after_run,
          needs=["turn 1: gm runs the turn"])
        S("players read their turn 1 reports", self.read_reports,
          needs=["turn 1: gm runs the turn"])
        S("a player changes their address on the web", self.change_address,
          needs=["players read their turn 1 reports", "players get their secret and link by mail"])
        S("a player declares an absence on the web", self.declare_absence,
          needs=["turn 1: gm runs the turn"])
        S("turn 2: westmark sends no orders", lambda: self.submit_orders(2, ["ann", "bob"]),
          needs=["turn 1: gm runs the turn"])
        S("a fourth person signs up as standby on the web", self.standby_signs_up,
          needs=["turn 1: gm runs the turn"])
        S("gm reads a player's orders on file", self.gm_reads_orders,
          needs=["turn 2: westmark sends no orders"])
        S("phone and desktop: every page during the game", self.layout_mid_game,
          needs=["gm reads a player's orders on file", "players exchange press on the web"])
        S("turn 2: gm runs the turn", lambda: self.gm_run(2, expect_missing=["WES"]),
          needs=["turn 2: westmark sends no orders"])
        self.feature("turn 2: gm confirms running with orders missing", self.confirmed.get(2),
                     "the confirmation page named WES" if self.confirmed.get(2)
                     else "the turn ran without asking", needs=["turn 2: gm runs the turn"])
        S("gm desk shows missed turns", self.gm_sees_missed,
          needs=["turn 2: gm runs the turn"])
        S("turn 3: westmark misses again", lambda: self.submit_orders(3, ["ann"]),
          needs=["turn 2: gm runs the turn"])
        S("turn 3: gm enters eastmark's orders", self.gm_enters_orders,
          needs=["turn 3: westmark misses again"])
        if not self.strict and "turn 3: gm enters eastmark's orders" not in self.passed:
            S("turn 3: eastmark sends its own orders (no GM entry yet)",
              lambda: self.submit_orders(3, ["bob"]), needs=["turn 3: westmark misses again"])
        S("turn 3: gm runs the turn", lambda: self.gm_run(3, expect_missing=["WES"]),
          needs=["turn 3: westmark misses again"])
        S("westmark is in civil disorder after 2 missed turns", self.gm_sees_disorder,
          needs=["turn 3: gm runs the turn"])
        S("standby gets a takeover offer by mail", self.takeover_offer,
          needs=["a fourth person signs up as standby on the web",
                 "westmark is in civil disorder after 2 missed turns"])
        S("standby takes westmark over on the web", self.takeover,
          needs=["standby gets a takeover offer by mail"])
        S("new westmark player signs in", self.new_player_signs_in,
          needs=["standby takes westmark over on the web"])
        movers = ["ann", "bob"] + (["dan"] if "new westmark player signs in" in self.passed
                                   else [])
        S("turn 4: the remaining players submit orders", lambda: self.submit_orders(4, movers),
          needs=["turn 3: gm runs the turn"])
        S("turn 4: gm runs the last turn", lambda: self.gm_run(4, expect_missing=[]
                                                               if "dan" in movers else None),
          needs=["turn 4: the remaining players submit orders"])
        S("the game is finished with a winner", self.finished,
          needs=["turn 4: gm runs the last turn", "scenario victory conditions"])
        S("standings page names the winner", self.standings_page,
          needs=["the game is finished with a winner"])
        S("standings are mailed to every player", self.standings_mail,
          needs=["the game is finished with a winner",
                 "players get their secret and link by mail"])
        S("finished games page lists the game and winner", self.finished_page,
          needs=["the game is finished with a winner"])
        S("archive shows every turn's map and summary", self.archive,
          needs=["turn 4: gm runs the last turn"])
        S("archive after the end: reports, order files, press", self.archive_after_end,
          needs=["the game is finished with a winner"])
        S("a player sees all their own order files", self.own_files,
          needs=["turn 4: gm runs the last turn"])
        S("no orders after the end", self.no_orders_after_end,
          needs=["the game is finished with a winner"])
        S("phone and desktop: pages after the end", self.layout_after_end,
          needs=["the game is finished with a winner"])

    def gm_sign_in(self):
        self.gm.goto(self.url("/gm"))
        check(self.gm.path() == "/gm/login", "/gm did not lead to the GM sign-in page")
        self.gm.submit("form[action='/gm/login']", {"token": "wrong-token"})
        check("/gm/login" in self.gm.path() or self.gm.status() >= 400,
              "a wrong GM token was let in")
        self.gm.goto(self.url("/gm/login"))
        self.gm.submit("form[action='/gm/login']", {"token": self.gm_token})
        check(self.gm.path() == "/gm", "the GM token did not sign in (at %s)" % self.gm.path())
        check(self.gm.cookies(), "no GM cookie was set")
        return "GM cookie set in its own browser context"

    def gm_create(self):
        self.gm.goto(self.url("/gm"))
        form = self.form(self.gm, "create-form", "form[action='/gm/games']")
        has_id = self.gm.exists(form + " [name=id]")
        has_signup = self.gm.exists(form + " [name=signup]")
        scenario = dict(self.scenario)
        if has_id:
            self.game = "e2e-marches"
        fields = {"scenario": json.dumps(scenario, indent=1)}
        if has_id:
            fields.update({"id": self.game, "name": "Three Marches (browser game)"})
        if has_signup:
            fields["signup"] = True
        status = self.gm.submit(form, fields)
        victory = True
        if status >= 400 and "victory" in (self.gm.text() or ""):
            victory = False  # the scenario schema has no victory conditions yet
            if self.strict:
                raise Failed("the scenario's victory conditions were refused: "
                             + self.gm.text("main")[:300])
            del scenario["victory"]
            form = self.form(self.gm, "create-form", "form[action='/gm/games']")
            fields["scenario"] = json.dumps(scenario, indent=1)
            status = self.gm.submit(form, fields)
        check(status < 400, "creating the game answered %s: %s"
              % (status, (self.gm.text("main") or "")[:300]))
        check(self.gm.path().startswith("/gm/games/" + self.game),
              "after creating, the GM is at %s, not the game's desk" % self.gm.path())
        j = self.game_json()
        self.feature("create form: id and name fields", has_id,
                     "game %s created with its own id" % self.game if has_id
                     else "no id field on the create form")
        self.feature("create form: open for sign-ups", has_signup and j.get("status") == "signup",
                     "status %s" % j.get("status"))
        self.feature("scenario victory conditions", victory,
                     "victory: last turn %d" % LAST_TURN if victory
                     else "the scenario schema refuses \"victory\"")
        self.shot(self.gm, "gm_desk_created")
        return "game %s, status %s" % (self.game, j.get("status"))

    def gm_attendance_options(self):
        path = "/api/games/%s/options/attendance" % self.game
        status, j = self.api("PUT", path, {"civil_disorder_after": 2})
        if status == 404 and "no page at" in json.dumps(j):
            raise Unavailable("PUT %s answers 404" % path)
        check(status == 200, "PUT %s answered %s: %s" % (path, status, j))
        status, j = self.api("GET", path)
        check(status == 200 and isinstance(j, dict) and j.get("civil_disorder_after") == 2,
              "GET %s: %s %s" % (path, status, j))
        return "civil disorder after 2 missed turns"

    def confirm_by_link(self, page, addr):
        """Follows the confirmation link mailed to `addr`: the page's one button confirms."""
        link = r"(/games/[^/\s]+/confirm\?code=[0-9a-f]{32})"
        m = self.mail.wait(addr, lambda m: re.search(link, m["text"]), "a confirmation link")
        self.open_page(page, re.search(link, m["text"]).group(1), "confirmation page")
        self.need(page, "#confirm-form", "confirmation form")
        self.submit_ok(page, "#confirm-form", {}, "confirming " + addr)

    def players_join(self):
        for who, (addr, prefs, _) in PEOPLE.items():
            p = self.pages[who]
            self.open_page(p, self.g("/join"), "sign-up page")
            self.need(p, "#join-form", "sign-up form")
            self.submit_ok(p, "#join-form", {"email": addr, "preferences": prefs},
                           "joining as " + addr)
            self.confirm_by_link(p, addr)
        # The same address again is not a second sign-up.
        p = self.pages["ann"]
        self.open_page(p, self.g("/join"), "sign-up page")
        p.submit("#join-form", {"email": PEOPLE["ann"][0], "preferences": PEOPLE["ann"][1]})
        self.gm.goto(self.url("/gm/games/" + self.game))
        self.need(self.gm, "#signups", "sign-ups section on the GM desk")
        listed = self.gm.text("#signups") or ""
        for who, (addr, _, _) in PEOPLE.items():
            check(addr in listed, "%s is not on the GM's sign-up list: %s" % (addr, listed[:300]))
        check(listed.count(PEOPLE["ann"][0]) == 1, "ann's address is listed twice: " + listed[:300])
        return "3 sign-ups listed on the GM desk"

    def gm_invites(self):
        self.gm.goto(self.url("/gm/games/" + self.game))
        self.need(self.gm, "#invite-form", "invite form")
        self.submit_ok(self.gm, "#invite-form", {"email": INVITED}, "inviting " + INVITED)
        m = self.mail.wait(INVITED, lambda m: self.g("/join") in m["text"], "an invitation")
        check(re.search(r"JOIN\s+%s" % re.escape(self.game), m["text"], re.I),
              "the invitation does not show the JOIN command")
        return "invitation mailed with the join page and the JOIN command"

    def gm_approves(self):
        self.gm.goto(self.url("/gm/games/" + self.game))
        actions = [a for a in self.gm.attrs("#signups form", "action") or []
                   if a and re.search(r"/signups/[^/]+/approve$", a)]
        if not actions:
            raise Unavailable("no approve forms in #signups")
        check(len(actions) == 3, "%d approve forms for 3 sign-ups" % len(actions))
        for a in actions:
            self.gm.goto(self.url("/gm/games/" + self.game))
            sel = "form[action='%s']" % a
            if self.gm.exists(sel):
                self.submit_ok(self.gm, sel, None, "approving " + a)
        return "approved %d sign-ups" % len(actions)

    def gm_starts(self):
        self.gm.goto(self.url("/gm/games/" + self.game))
        self.need(self.gm, "#start-form", "start form")
        self.submit_ok(self.gm, "#start-form", None, "starting the game")
        j = self.game_json()
        check(j.get("status") == "open", "after the start the game's status is %s"
              % j.get("status"))
        return "status open, turn %s" % j.get("turn")

    def players_mail_links(self):
        pat = re.compile(r"https?://[^\s<>\"]+/games/%s/p/[A-Za-z0-9_\-]+" % re.escape(self.game))
        for who, (addr, _, _) in PEOPLE.items():
            m = self.mail.wait(addr, lambda m: pat.search(m["text"]), "a sign-in link")
            self.links[who] = pat.search(m["text"]).group(0)
            check(any("secret" in x["text"].lower() for x in self.mail.to(addr)),
                  "no mail to %s gives a secret" % addr)
            check(len(m["rcpt"]) == 1 and not m["headers"].get("cc"),
                  "the sign-in mail to %s went to several addresses: %s" % (addr, m["to"]))
        return "3 private mails with secret and link"

    def gm_issues_links(self):
        """The way before sign-ups: the GM makes a sign-in link per kingdom, shown once."""
        for who, (_, _, code) in PEOPLE.items():
            self.gm.goto(self.url("/gm/games/" + self.game))
            sel = ("form[action='/gm/games/%s/players/%s/reset']:has(input[value=token])"
                   % (self.game, code))
            check(self.gm.exists(sel), "no sign-in link button for " + code)
            self.gm.submit(sel)
            urls = [t for t in self.gm.texts("td.token") if "/p/" in t]
            check(len(urls) == 1, "the credentials page shows %d links" % len(urls))
            self.links[who] = urls[0].strip()
        return "links for NOR, EST, WES from the GM desk"

    def players_sign_in(self):
        for who, (_, _, expected) in PEOPLE.items():
            p = self.pages[who]
            status = p.goto(self.links[who])
            check(status == 200 and p.path() == self.g("/me"),
                  "%s's link led to %s (%s)" % (who, p.path(), status))
            h1 = p.text("h1") or ""
            m = re.search(r"\(([A-Z]{3})\)", h1)
            check(m, "%s's page names no kingdom: %s" % (who, h1))
            self.kingdom[who] = m.group(1)
        got = {w: self.kingdom[w] for w in PEOPLE}
        want = {w: PEOPLE[w][2] for w in PEOPLE}
        check(got == want, "kingdoms %s, preferences asked for %s" % (got, want))
        # Separate cookie jars: ann's browser is not bob's.
        check(self.pages["ann"].cookies() != self.pages["bob"].cookies(),
              "two players share a cookie jar")
        self.shot(self.pages["ann"], "player_page")
        return ", ".join("%s=%s" % kv for kv in got.items())

    def press(self):
        ann, bob, cat = self.pages["ann"], self.pages["bob"], self.pages["cat"]
        self.open_page(ann, self.g("/me/press"), "press inbox")
        self.need(ann, "#press-form", "press compose form")
        # The private message first: a player's first press digest goes out at once and the next
        # one an interval later (15 min), so each message press_mail waits for must be in its
        # recipient's first digest, whichever side of a digest pass the second message falls.
        self.submit_ok(ann, "#press-form", {"to": ["EST"], "body": PRIVATE_PRESS},
                       "private press to EST")
        self.open_page(ann, self.g("/me/press"), "press inbox")
        self.submit_ok(ann, "#press-form", {"to": ["ALL"], "body": PUBLIC_PRESS},
                       "public press")
        self.open_page(bob, self.g("/me/press"), "press inbox")
        self.need(bob, "#press-inbox", "press inbox section")
        got = " ".join(bob.texts("#press-inbox .press-message"))
        check(PUBLIC_PRESS in got and PRIVATE_PRESS in got,
              "Eastmark's inbox lacks a message: " + got[:400])
        self.open_page(cat, self.g("/me/press"), "press inbox")
        got = " ".join(cat.texts("#press-inbox .press-message"))
        check(PUBLIC_PRESS in got, "Westmark's inbox lacks the public message: " + got[:400])
        check(PRIVATE_PRESS not in got, "Westmark reads press meant for Eastmark alone")
        self.shot(bob, "press_inbox")
        return "public to all, private to EST; WES does not see the private one"

    def gm_press_options(self):
        path = "/api/games/%s/options/press" % self.game
        status, j = self.api("PUT", path, {"press": "anonymous", "gm_reads_private": True})
        if status == 404 and "no page at" in json.dumps(j):
            raise Unavailable("PUT %s answers 404" % path)
        check(status == 200, "PUT %s answered %s: %s" % (path, status, j))
        status, j = self.api("GET", path)
        check(status == 200 and isinstance(j, dict) and j.get("press") == "anonymous",
              "GET %s: %s %s" % (path, status, j))
        return "press: anonymous"

    def anonymous_press(self):
        cat, ann = self.pages["cat"], self.pages["ann"]
        self.open_page(cat, self.g("/me/press"), "press inbox")
        self.need(cat, "#press-form [name=anonymous]", "the anonymous checkbox")
        self.submit_ok(cat, "#press-form", {"to": ["NOR"], "body": ANON_PRESS, "anonymous": True},
                       "anonymous press to NOR")
        self.open_page(ann, self.g("/me/press"), "press inbox")
        msgs = [t for t in ann.texts("#press-inbox .press-message") if ANON_PRESS in t]
        check(len(msgs) == 1, "Northmark's inbox has %d copies of the anonymous message" % len(msgs))
        check("Westmark" not in msgs[0] and "WES" not in msgs[0],
              "the anonymous message names its sender: " + msgs[0])
        if "players get their secret and link by mail" in self.passed:
            m = self.mail.wait(self.addr["ann"], lambda m: ANON_PRESS in m["text"],
                               "the anonymous press")
            whole = json.dumps(m)
            check("Westmark" not in whole and self.addr["cat"] not in whole,
                  "the anonymous press mail reveals its sender")
            return "neither the inbox nor the mail names Westmark"
        return "the inbox does not name Westmark"

    def change_address(self):
        p, old = self.pages["ann"], self.addr["ann"]
        self.open_page(p, self.g("/me"), "player page")
        self.need(p, "#address-form", "address form")
        self.submit_ok(p, "#address-form", {"email": ANN_NEW}, "address change")
        self.mail.wait(old, lambda m: ANN_NEW in m["text"], "the notice of the change")
        self.mail.wait(ANN_NEW, lambda m: "address" in (m["subject"] + m["text"]).lower(),
                       "the notice of the change")
        self.addr["ann"] = ANN_NEW
        self.open_page(p, self.g("/me"), "player page")
        check(p.eval("(document.querySelector('#address-form [name=email]') || {}).value")
              == ANN_NEW, "the address form does not show the new address")
        return "%s -> %s; both told" % (old, ANN_NEW)

    def declare_absence(self):
        p = self.pages["bob"]
        self.open_page(p, self.g("/me"), "player page")
        self.need(p, "#absence-form", "absence form")
        day = 86400
        start = time.strftime("%Y-%m-%d", time.gmtime(time.time() + 10 * day))
        end = time.strftime("%Y-%m-%d", time.gmtime(time.time() + 12 * day))
        self.submit_ok(p, "#absence-form", {"from": start, "to": end}, "absence")
        self.open_page(p, self.g("/me"), "player page")
        check(start in (p.text() or ""), "the player page does not show the absence from " + start)
        row = self.gm_players_row("EST")
        if row["absence"] is None:
            raise Unavailable("no absence column on the GM desk")
        check(start in row["absence"], "the GM desk shows EST's absence as %r" % row["absence"])
        return "%s to %s, shown to the player and the GM" % (start, end)

    def press_mail(self):
        m = self.mail.wait(self.addr["bob"], lambda m: PRIVATE_PRESS in m["text"],
                           "the private press")
        self.mail.wait(self.addr["cat"], lambda m: PUBLIC_PRESS in m["text"], "the public press")
        check(not any(PRIVATE_PRESS in m["text"] for m in self.mail.to(self.addr["cat"])),
              "Westmark was mailed press meant for Eastmark alone")
        threaded = any(k in m["headers"] for k in ("in-reply-to", "references", "thread-topic"))
        return "mailed to EST%s" % (", threaded" if threaded else "")

    def orders_form(self, p):
        return self.form(p, "orders-form", "form[action$='/me/orders']")

    def orders_errors(self):
        p = self.pages["ann"]
        self.open_page(p, self.g("/me"), "player page")
        form = self.orders_form(p)
        bad = "1. DEFEND NHL\n2. DEFEND XYZ\nEND\n"
        button = "button[value=check]" if p.exists(form + " button[value=check]") else None
        p.submit(form, {"orders": bad}, button)
        kept = p.eval("Array.from(document.querySelectorAll('textarea[name=orders]'),"
                      " t => t.value).join('\\n')") or ""
        if "DEFEND XYZ" not in kept:
            raise Unavailable("the answer page does not keep the text in the orders field")
        text = p.text() or ""
        check("XYZ" in text, "the rejected line is not shown: " + text[:300])
        return "text kept, line 2 marked"

    def submit_orders(self, turn, people):
        for who in people:
            p = self.pages[who]
            self.open_page(p, self.g("/me"), "player page")
            code = self.kingdom[who]
            form = self.orders_form(p)
            button = "button[value=submit]" if p.exists(form + " button[value=submit]") else None
            if p.exists(form + " input[name=turn]"):
                check(p.eval("document.querySelector(%s).value"
                             % json.dumps(form + " input[name=turn]")) == str(turn),
                      "the orders form carries turn %s, not %d"
                      % (p.eval("document.querySelector(%s).value"
                                % json.dumps(form + " input[name=turn]")), turn))
            self.submit_ok(p, form, {"orders": ORDERS[code]}, "orders of " + code, button)
        status, subs = self.api("GET", "/api/games/%s/submissions" % self.game)
        check(status == 200 and isinstance(subs, dict), "GET submissions: %s" % status)
        check(subs.get("turn") == turn, "orders were sent for turn %d but turn %s is open"
              % (turn, subs.get("turn")))
        on_file = {s["player"]: s for s in subs.get("players", [])}
        for who in people:
            s = on_file.get(self.kingdom[who], {})
            check(s.get("has_orders") and s.get("accepted") == 2 and s.get("rejected") == 0,
                  "%s's orders for turn %d on file: %s" % (self.kingdom[who], turn, s))
        return "%s on file for turn %d" % (", ".join(self.kingdom[w] for w in people), turn)

    def on_record(self):
        p = self.pages["ann"]
        self.open_page(p, self.g("/me"), "player page")
        self.need(p, "#on-record", "section with the orders on record")
        got = p.text("#on-record") or ""
        check("DEFEND NHL" in got and "DEFEND NVL" in got,
              "the file on record is not shown: " + got[:300])
        return "the file on record is shown"

    def gm_run(self, turn, expect_missing):
        """Runs the open turn from the GM desk; with orders missing, through the confirmation
        page. expect_missing None: not known (a fallback game without the standby)."""
        self.gm.goto(self.url("/gm/games/" + self.game))
        form = self.form(self.gm, "run-form", "form[action$='/run']")
        if self.gm.exists(form + " input[name=turn]"):
            v = self.gm.eval("document.querySelector(%s).value"
                             % json.dumps(form + " input[name=turn]"))
            check(v == str(turn), "the run form carries turn %s, not %d" % (v, turn))
        self.submit_ok(self.gm, form, None, "run turn %d" % turn)
        confirmed = False
        if self.gm.exists("#confirm-run-form"):
            listed = self.gm.text("main") or self.gm.text()
            check(expect_missing != [], "a confirmation was asked with every order in")
            for code in expect_missing or []:
                check(code in listed, "the confirmation page does not name %s" % code)
            if turn == 2:  # the confirmation page exists only as the answer to a POST
                self.layout_here(self.gm, "gm_confirm_run")
            self.submit_ok(self.gm, "#confirm-run-form", None, "confirm run turn %d" % turn)
            confirmed = True
        j = self.game_json()
        check(j.get("turn") == turn + 1 or j.get("status") == "finished",
              "after running turn %d the open turn is %s (status %s)"
              % (turn, j.get("turn"), j.get("status")))
        self.after_run_path = self.gm.path()
        self.confirmed[turn] = confirmed
        return "turn %d ran%s" % (turn, " after confirming" if confirmed else "")

    def reload_after_run(self):
        if self.after_run_path.endswith("/run"):
            # The answer is the POST's own page: reloading it would post again.
            raise Unavailable("the run answer is shown at the POST's URL (no redirect)")
        before = self.game_json().get("turn")
        self.gm._mark()
        self.gm.eval("location.reload()")
        self.gm._wait_new_document("reload")
        after = self.game_json().get("turn")
        check(after == before, "reloading the answer ran turn %s" % before)
        return "still turn %s after a reload of %s" % (after, self.after_run_path)

    def read_reports(self):
        for who in PEOPLE:
            p = self.pages[who]
            self.open_page(p, self.g("/me"), "player page")
            check(p.exists("a[href$='/me/reports/1']"), "%s's page has no link to report 1" % who)
            p.click("a[href$='/me/reports/1']")
            text = p.text() or ""
            check("turn 1" in text and KINGDOM_NAMES[self.kingdom[who]] in text,
                  "%s's report 1: %s" % (who, text[:300]))
        if "players get their secret and link by mail" in self.passed:
            for who in PEOPLE:
                self.mail.wait(self.addr[who], lambda m: "turn 1" in (m["subject"] + m["text"]).lower()
                               and "report" in (m["subject"] + m["text"]).lower(),
                               "the turn 1 report")
            return "on the web and by mail"
        return "on the web"

    def standby_signs_up(self):
        name, addr = STANDBY
        p = self.pages[name]
        self.open_page(p, self.g("/standby"), "standby page")
        self.need(p, "#standby-form", "standby form")
        self.submit_ok(p, "#standby-form", {"email": addr}, "standby sign-up")
        self.confirm_by_link(p, addr)
        return addr + " on the standby list"

    def gm_reads_orders(self):
        """Turn 2 is open and NOR's orders are on file: the GM reads them."""
        path = "/gm/games/%s/players/NOR/orders" % self.game
        self.open_page(self.gm, path, "a player's orders on the GM desk")
        self.need(self.gm, "#on-record", "the orders on record")
        got = self.gm.text("#on-record") or ""
        check("DEFEND NHL" in got and "DEFEND NVL" in got, "NOR's file is not shown: " + got[:300])
        return "NOR's file on record"

    def gm_enters_orders(self):
        path = "/gm/games/%s/players/EST/orders" % self.game
        self.open_page(self.gm, path, "a player's orders on the GM desk")
        self.need(self.gm, "#gm-orders-form", "the GM's orders form")
        self.submit_ok(self.gm, "#gm-orders-form", {"orders": ORDERS["EST"]},
                       "the GM entering EST's orders")
        status, subs = self.api("GET", "/api/games/%s/submissions" % self.game)
        est = next((x for x in subs.get("players", []) if x.get("player") == "EST"), {})
        check(est.get("has_orders") and est.get("accepted") == 2,
              "EST's orders entered by the GM are not on file: %s" % est)
        if "players get their secret and link by mail" in self.passed:
            self.mail.wait(self.addr["bob"], lambda m: "DEFEND EFN" in m["text"]
                           and "turn 3" in (m["subject"] + m["text"]).lower(),
                           "the orders the GM entered")
            return "on file for EST; Eastmark told by mail"
        return "on file for EST"

    def gm_players_row(self, code):
        """`code`'s rows on the GM desk (the players section, and an attendance section where
        there is one): {"text": their text, "missed", "disorder", "absence": the text of the
        cell with that class, or under a column headed so; None where there is none}."""
        self.gm.goto(self.url("/gm/games/" + self.game))
        self.need(self.gm, "#players, #attendance", "players section on the GM desk")
        row = self.gm.eval("""(code => {
  const re = new RegExp('\\\\b' + code + '\\\\b');
  const rows = Array.from(document.querySelectorAll(
      '#players tr, #players li, #players .player, #attendance tr'))
      .filter(r => re.test(r.innerText) && !r.querySelector('th'));
  if (!rows.length) return null;
  const cell = (cls, head) => {
    for (const r of rows) {
      const e = r.querySelector('.' + cls);
      if (e) return e.innerText.trim();
      const table = r.closest('table');
      const heads = table ? Array.from(table.querySelectorAll('thead th')) : [];
      const i = heads.findIndex(h => head.test(h.innerText));
      if (i >= 0 && r.cells && r.cells[i]) return r.cells[i].innerText.trim();
    }
    return null;
  };
  return {text: rows.map(r => r.innerText).join(' | '),
          missed: cell('missed', /missed/i), disorder: cell('disorder', /disorder/i),
          absence: cell('absence', /absence|away/i)};
})(%s)""" % json.dumps(code))
        check(row, "no row for %s on the GM desk" % code)
        return row

    def gm_sees_disorder(self):
        row = self.gm_players_row("WES")
        if row["disorder"] is None:
            raise Unavailable("no civil disorder column on the GM desk")
        check(row["disorder"].lower() not in ("", "no", "-"),
              "WES's civil disorder cell says %r" % row["disorder"])
        check(row["missed"] is not None and re.search(r"\b2\b", row["missed"]),
              "WES's row does not show 2 missed turns: %r" % row["missed"])
        self.shot(self.gm, "gm_desk_civil_disorder")
        return re.sub(r"\s+", " ", row["text"]).strip()

    def gm_sees_missed(self):
        row = self.gm_players_row("WES")
        if row["missed"] is None:
            raise Unavailable("no missed-turns column on the GM desk")
        check(re.search(r"\b1\b", row["missed"]), "WES's row shows no missed turn: %r"
              % row["missed"])
        if "players get their secret and link by mail" in self.passed:
            check(self.addr["cat"] in row["text"], "WES's row shows no address: " + row["text"])
        return re.sub(r"\s+", " ", row["text"]).strip()

    def takeover_offer(self):
        addr = STANDBY[1]
        pat = re.compile(r"TAKEOVER\s+%s\s+WES\s+(\S+)" % re.escape(self.game), re.I)
        m = self.mail.wait(addr, lambda m: pat.search(m["text"]), "a takeover offer for WES")
        self.takeover_code = pat.search(m["text"]).group(1).strip(".,;")
        linked = self.g("/takeover") in m["text"]
        return "code received by mail" + ("" if linked else " (the offer has no link to the "
                                          "takeover page)")

    def takeover(self):
        name, addr = STANDBY
        p = self.pages[name]
        self.open_page(p, self.g("/takeover"), "takeover page")
        self.need(p, "#takeover-form", "takeover form")
        # A wrong code first: refused, nothing changes.
        status = p.submit("#takeover-form", {"kingdom": "WES", "code": "not-the-code",
                                             "email": addr})
        said = (p.text() or "").lower()
        check(status >= 400 or any(w in said for w in ("wrong", "invalid", "not valid", "unknown")),
              "a wrong takeover code was accepted (%s): %s" % (status, said[:300]))
        self.open_page(p, self.g("/takeover"), "takeover page")
        p.fill("#takeover-form", {"kingdom": "WES", "code": self.takeover_code, "email": addr})
        self.shot(p, "takeover_form")
        self.submit_ok(p, "#takeover-form", None, "takeover")
        return "WES taken over by " + addr

    def new_player_signs_in(self):
        """With the mailed sign-in link, or else the mailed secret on the sign-in page."""
        name, addr = STANDBY
        pat = re.compile(r"https?://[^\s<>\"]+/games/%s/p/[A-Za-z0-9_\-]+" % re.escape(self.game))
        secret_pat = re.compile(r"PLAYER\s+WES\s+(\S+)")
        m = self.mail.wait(addr, lambda m: pat.search(m["text"]) or secret_pat.search(m["text"]),
                           "a sign-in link or the new secret")
        p = self.pages[name]
        link = pat.search(m["text"])
        if link:
            how = "the mailed link"
            status = p.goto(link.group(0))
        else:
            how = "the mailed secret (the mail has no sign-in link)"
            self.open_page(p, self.g("/login"), "sign-in page")
            status = p.submit("form[action$='/login']",
                              {"player": "WES", "secret": secret_pat.search(m["text"]).group(1)})
        check(status == 200 and p.path() == self.g("/me"),
              "dan's sign-in led to %s (%s)" % (p.path(), status))
        check("(WES)" in (p.text("h1") or ""), "dan's page is not Westmark's: " + p.text("h1"))
        self.kingdom[name] = "WES"
        # Cat's old sign-in no longer works for Westmark.
        cat = self.pages["cat"]
        cat.goto(self.url(self.g("/me")))
        check(cat.path() != self.g("/me") or "(WES)" not in (cat.text("h1") or ""),
              "the replaced player still reaches Westmark's page")
        return "dan signed in as WES with %s; cat's session ended" % how

    def finished(self):
        j = self.game_json()
        if j.get("status") != "finished":
            status, body = self.api("GET", "/api/games/%s/standings" % self.game)
            if status == 404 and "no page at" in json.dumps(body):
                raise Unavailable("the game does not end: no standings route yet")
        check(j.get("status") == "finished", "after turn %d the status is %s"
              % (LAST_TURN, j.get("status")))
        return "status finished"

    def standings_page(self):
        p = self.pages["ann"]
        self.open_page(p, self.g("/standings"), "standings")
        self.need(p, "#standings", "standings table")
        winner = p.text("#winner") or p.text(".winner") or ""
        check(KINGDOM_NAMES[WINNER] in winner or WINNER in winner,
              "the winner shown is %r, expected %s" % (winner, KINGDOM_NAMES[WINNER]))
        table = p.text("#standings") or ""
        for code, name in KINGDOM_NAMES.items():
            check(code in table or name in table, "%s missing from the standings" % name)
        self.shot(p, "standings")
        return "winner " + winner.strip()[:80]

    def standings_mail(self):
        for addr in [self.addr["ann"], self.addr["bob"], self.addr["dan"]]:
            self.mail.wait(addr, lambda m: KINGDOM_NAMES[WINNER] in m["text"]
                           and "standing" in (m["subject"] + m["text"]).lower(),
                           "the final standings")
        return "ann (at her new address), bob, dan"

    def finished_page(self):
        p = self.pages["bob"]
        self.open_page(p, "/finished", "finished games")
        self.need(p, "#finished-games", "finished games list")
        text = p.text("#finished-games") or ""
        check(self.game in text or "Three Marches" in text, "the game is not listed: " + text[:300])
        check(KINGDOM_NAMES[WINNER] in text or WINNER in text,
              "the winner is not listed: " + text[:300])
        return "listed with its winner"

    def archive(self):
        p = self.pages["cat"]  # anyone may browse it
        self.open_page(p, self.g("/archive"), "archive")
        for t in range(1, LAST_TURN + 1):
            check(p.exists("a[href$='/archive/%d']" % t), "the archive has no turn %d" % t)
        self.open_page(p, self.g("/archive/1"), "archive of turn 1")
        check(p.exists("svg"), "turn 1 in the archive has no map")
        self.shot(p, "archive_turn1")
        return "turns 1-%d with maps" % LAST_TURN

    def archive_after_end(self):
        p = self.pages["cat"]
        self.open_page(p, self.g("/archive/1"), "archive of turn 1")
        text = p.text() or ""
        check("DEFEND NHL" in text or p.exists("a[href*='files'], a[href*='orders']"),
              "after the end, turn 1's order files are not in the archive")
        check("unused-nor" not in p.html(), "a secret is shown in the archive")
        self.open_page(p, self.g("/press"), "press archive")
        text = p.text() or ""
        check(PUBLIC_PRESS in text, "the public press is not in the archive")
        check(PRIVATE_PRESS in text, "after the end, private press is not in the archive")
        return "order files and all press"

    def own_files(self):
        p = self.pages["ann"]
        self.open_page(p, self.g("/me/files"), "own order files")
        text = p.text() or ""
        check(text.count("DEFEND NHL") >= 1, "ann's files are not shown: " + text[:300])
        for t in range(1, LAST_TURN + 1):
            check(re.search(r"\b[Tt]urn %d\b" % t, text), "no file for turn %d" % t)
        return "turns 1-%d" % LAST_TURN

    def no_orders_after_end(self):
        p = self.pages["ann"]
        self.open_page(p, self.g("/me"), "player page")
        form = next((f for f in ("#orders-form", "form[action$='/me/orders']") if p.exists(f)),
                    None)
        if form is None:
            said = (p.text() or "").lower()
            check("over" in said or "finished" in said,
                  "the player page neither takes orders nor says the game is over")
            return "no orders form; the page says the game is over"
        p.submit(form, {"orders": ORDERS["NOR"]})
        check("over" in (p.text() or "").lower(), "orders after the end were not refused: "
              + (p.text() or "")[:300])
        return "refused: the game is over"

    # ---- issue 13: phones, the order builder, local times ----

    def anon_page(self):
        if self.anon is None:
            self.anon = self.browser.new_page("anon")
        return self.anon

    def layout_tour(self, items):
        try:
            done = layout.tour([(p, self.url(path), name) + tuple(rest)
                                for p, path, name, *rest in items], self.shots)
        except layout.LayoutError as e:
            raise Failed(str(e))
        return "%d pages at %d and %d px: %s" % (len(done), layout.PHONE["width"],
                                                 layout.DESKTOP["width"], ", ".join(done))

    def layout_here(self, page, name):
        try:
            layout.check_here(page, name, self.shots)
        except layout.LayoutError as e:
            raise Failed(str(e))
        finally:
            layout.clear_metrics(page)

    def layout_signup(self):
        a, gm = self.anon_page(), self.gm
        return self.layout_tour([
            (a, "/", "index"), (a, self.g(), "game_signup"), (a, self.g("/join"), "join"),
            (a, "/gm/login", "gm_login"), (gm, "/gm", "gm_desk"),
            (gm, "/gm/games/" + self.game, "gm_game_signups")])

    def layout_mid_game(self):
        a, ann, gm, g = self.anon_page(), self.pages["ann"], self.gm, self.game
        self.open_page(gm, "/games/%s/outbox" % g, "the outbox")
        message = gm.eval("(document.querySelector(\"#outbox a[href^='/gm/outbox/']\") || {})"
                          ".pathname")
        check(message, "the outbox lists no message")
        done = self.layout_tour([
            (gm, message, "outbox_message"), (a, self.g(), "game"), (a, self.g("/login"), "login"),
            (a, self.g("/standby"), "standby"), (a, self.g("/takeover"), "takeover"),
            (a, self.g("/press"), "press_public"), (a, self.g("/audit"), "audit"),
            (a, self.g("/archive"), "archive"), (a, self.g("/archive/1"), "archive_turn"),
            (a, self.g("/standings"), "standings_open"), (a, "/finished", "finished"),
            (a, self.g("/no-such-page"), "error_404", 404),
            (a, self.g("/archive/99"), "error_404_page", 404),
            (ann, self.g("/me"), "player_page"), (ann, self.g("/me/reports/1"), "report"),
            (ann, self.g("/me/press"), "press_inbox"), (ann, self.g("/me/files"), "own_files"),
            (gm, "/gm", "gm_desk_games"), (gm, "/gm/games/" + g, "gm_game"),
            (gm, "/gm/games/%s/preview" % g, "gm_preview"),
            (gm, "/gm/games/%s/turns/1" % g, "gm_turn"),
            (gm, "/gm/games/%s/players/NOR/orders" % g, "gm_orders"),
            (gm, "/gm/games/%s/press" % g, "gm_press"),
            (gm, "/games/%s/players/NOR/reports/1" % g, "gm_report"),
            (gm, "/games/%s/outbox" % g, "outbox"), (gm, "/gm/mail", "gm_mail")])
        # The roundup and the standings (5 columns each) have rows the phone check measured.
        for name in ("game", "standings_open"):
            check(layout.rows_checked.get(name, 0) > 0,
                  "no table row of the %s page was measured at phone width" % name)
        # The maps of the game page, the orders page and a report were measured at 1280 px.
        for name in ("game", "player_page", "report"):
            check(layout.maps_measured.get(name, 0) >= layout.MAP_MIN_WIDTH,
                  "the %s page's map was not measured at least %d px wide (%s)"
                  % (name, layout.MAP_MIN_WIDTH, layout.maps_measured.get(name)))
        return "%s; table rows measured at %d px: %s; maps at %d px: %s" % (
            done, layout.PHONE["width"],
            ", ".join("%s %d" % kv for kv in sorted(layout.rows_checked.items()) if kv[1]),
            layout.DESKTOP["width"],
            ", ".join("%s %.0f" % kv for kv in sorted(layout.maps_measured.items())))

    def layout_after_end(self):
        a, ann = self.anon_page(), self.pages["ann"]
        self.layout_here(ann, "player_page_over")  # where no_orders_after_end left it
        # Pages that only answer a POST: a new sign-in link, and the GM's fresh credentials.
        self.open_page(ann, self.g("/me"), "player page")
        self.submit_ok(ann, "form[action$='/me/link']", None, "a new sign-in link")
        check("/p/" in (ann.text("main") or ""), "no new sign-in link shown")
        self.layout_here(ann, "me_link")
        self.gm.goto(self.url("/gm/games/" + self.game))
        reset = ("form[action='/gm/games/%s/players/EST/reset']:has(input[value=secret])"
                 % self.game)
        self.submit_ok(self.gm, reset, None, "a new secret for EST")
        check(self.gm.exists("td.token"), "no fresh credentials shown")
        self.layout_here(self.gm, "gm_credentials")
        return self.layout_tour([
            (a, self.g(), "game_over"), (a, self.g("/standings"), "standings"),
            (a, "/finished", "finished_games"), (a, self.g("/archive"), "archive_over"),
            (a, self.g("/archive/%d" % LAST_TURN), "archive_last_turn"),
            (a, self.g("/press"), "press_all"), (ann, self.g("/me/files"), "own_files_over"),
            (ann, self.g("/me/reports/%d" % LAST_TURN), "report_last")])

    def order_builder(self):
        """Ann builds her turn 1 orders with the builder's lists, the textarea gets the same
        text she could type, and the server accepts it. Without JavaScript the builder is
        hidden and the textarea is all there is."""
        p = self.pages["ann"]
        self.open_page(p, self.g("/me"), "player page")
        self.need(p, "#order-builder", "the order builder")
        check(p.eval("!document.getElementById('order-builder').hidden"),
              "the order builder stays hidden with JavaScript on")
        state = self.game_json()
        own = sorted(a["code"] for a in state["areas"] if a.get("owner") == "NOR")
        check(sorted(layout.builder_options(p, "ob-area")) == own,
              "the builder offers areas %s, Northmark holds %s"
              % (layout.builder_options(p, "ob-area"), own))
        verbs = layout.builder_options(p, "ob-action")
        for v in ("MOVE", "ASSAULT", "PROBE", "OVERRUN", "AMBUSH", "RETREAT", "DEFEND", "LEVY"):
            check(v in verbs, "the builder has no %s (it has %s)" % (v, verbs))
        p.eval("document.getElementById('orders').value = ''")
        p.eval("document.getElementById('ob-area').value = 'NHL';"
               "document.getElementById('ob-area').dispatchEvent(new Event('change'))")
        # Only what the validator accepts: no sea as a target (this game has no ships).
        sea = {a["code"] for a in state["areas"] if a.get("kind") == "sea"}
        near = sorted(({e[1] for e in state["adjacency"] if e[0] == "NHL"}
                       | {e[0] for e in state["adjacency"] if e[1] == "NHL"}) - sea)
        err = layout.builder_add(p, "NHL", "MOVE", near[0], "AB-1")
        check(not err, err)
        check(sorted(layout.builder_options(p, "ob-target")) == near,
              "MOVE from NHL offers %s, the map's neighbours are %s"
              % (layout.builder_options(p, "ob-target"), near))
        text = p.eval("document.getElementById('orders').value")
        check(text == "MOVE NHL %s AB-1\n" % near[0], "the builder wrote %r" % text)
        err = layout.builder_add(p, "NHL", "MOVE", near[0], "lots")
        check("AB-n" in err, "a count of 'lots' was not refused: %r" % err)
        # The map: clicking NVL picks it as the area, then clicking a neighbour picks the target.
        click = ("document.querySelector('#orders-map [data-code=\"%s\"]')"
                 ".dispatchEvent(new MouseEvent('click', {bubbles: true}))")
        check(p.exists("#orders-map svg"), "the orders page has no map")
        p.eval(click % "NVL")
        check(p.eval("document.getElementById('ob-area').value") == "NVL",
              "a click on NVL did not pick it")
        nvl_near = layout.builder_options(p, "ob-target")
        check(nvl_near, "MOVE from NVL offers no target")
        p.eval(click % nvl_near[-1])
        check(p.eval("document.getElementById('ob-target').value") == nvl_near[-1],
              "a click on %s did not pick it as the target" % nvl_near[-1])
        # Zoom without a reload (map.js): + widens the map inside its box, which then scrolls.
        p.eval("window.__noReload = true")
        before = p.eval("document.querySelector('#orders-map svg.map')"
                        ".getBoundingClientRect().width")
        p.eval("document.querySelector('#orders-map .map-zoom-in').click()")
        p.eval("document.querySelector('#orders-map .map-zoom-in').click()")
        after = p.eval("document.querySelector('#orders-map svg.map')"
                       ".getBoundingClientRect().width")
        check(p.eval("window.__noReload === true"), "zooming reloaded the page")
        check(after > 1.9 * before, "zoom in twice: the map went from %.0f to %.0f px"
              % (before, after))
        check(p.eval("(() => { const b = document.querySelector('#orders-map .map-box');"
                     " return b.scrollWidth > b.clientWidth; })()"),
              "the zoomed map's box does not scroll")
        p.eval("document.querySelector('#orders-map .map-zoom-out').click();"
               "document.querySelector('#orders-map .map-zoom-out').click()")
        # The real orders: clear, then DEFEND NHL and DEFEND NVL, and an END the next line
        # must go before.
        p.eval("document.getElementById('orders').value = 'END\\n'")
        for area in ("NHL", "NVL"):
            err = layout.builder_add(p, area, "DEFEND")
            check(not err, err)
        text = p.eval("document.getElementById('orders').value")
        check(text == "DEFEND NHL\nDEFEND NVL\nEND\n", "the builder wrote %r" % text)
        self.submit_ok(p, self.orders_form(p), None, "orders from the builder",
                       "button[value=submit]")
        status, subs = self.api("GET", "/api/games/%s/submissions" % self.game)
        nor = next((x for x in subs.get("players", []) if x.get("player") == "NOR"), {})
        check(nor.get("has_orders") and nor.get("accepted") == 2 and nor.get("rejected") == 0,
              "the builder's orders on file: %s" % nor)
        # No JavaScript: the builder stays hidden, the form is the same.
        p.call("Emulation.setScriptExecutionDisabled", {"value": True})
        try:
            self.open_page(p, self.g("/me"), "player page without JavaScript")
            check(p.eval("document.getElementById('order-builder').hidden") is True,
                  "without JavaScript the builder is shown")
            check(p.exists("#orders-form textarea[name=orders]"), "no textarea without JS")
        finally:
            p.call("Emulation.setScriptExecutionDisabled", {"value": False})
        return "MOVE NHL %s AB-1 from the lists; DEFEND NHL, DEFEND NVL accepted" % near[0]

    def local_times(self):
        """The audit log and ann's page in three zones: each time in UTC, and beside it the
        reader's own time (none added for a reader in UTC)."""
        p = self.pages["ann"]
        checked = []
        try:
            for zone in ("Asia/Kolkata", "America/New_York"):
                p.call("Emulation.setTimezoneOverride", {"timezoneId": zone})
                for path in (self.g("/me"), self.g("/audit")):
                    self.open_page(p, path, "a page with times")
                    try:
                        n = layout.check_local_times(p, zone)
                    except layout.LayoutError as e:
                        raise Failed(str(e))
                    checked.append("%s %s: %d" % (zone, path.rsplit("/", 1)[-1], n))
                    if zone == "Asia/Kolkata" and path.endswith("/audit"):
                        self.shot(p, "local_times")
            p.call("Emulation.setTimezoneOverride", {"timezoneId": "UTC"})
            self.open_page(p, self.g("/audit"), "the audit log")
            extra = [t for t in layout.local_times(p) if t[2]]
            check(not extra, "a reader in UTC is shown a second time: %s" % extra[:2])
        finally:
            p.call("Emulation.setTimezoneOverride", {"timezoneId": ""})
        return "; ".join(checked)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--base", required=True, help="http://127.0.0.1:PORT of adjutant serve")
    ap.add_argument("--gm-token", required=True)
    ap.add_argument("--outbox", required=True, help="the daemon's outbox Maildir")
    ap.add_argument("--scenario", required=True, help="the three-kingdom scenario JSON")
    ap.add_argument("--shots", default="", help="directory for screenshots")
    ap.add_argument("--profile", default="", help="Chromium profile directory (default: a new "
                    "temporary one, removed at the end)")
    ap.add_argument("--strict", action="store_true",
                    default=os.environ.get("ADJ_E2E_STRICT", "") not in ("", "0"))
    args = ap.parse_args()
    cdp.close_on_sigterm()
    game = Game(args)
    t0 = time.monotonic()
    code = None
    try:
        game.run()
    except Exception as e:  # the browser did not start or died: a failed run
        game._record("browser", "failed", "%s: %s" % (type(e).__name__, e), 0)
    except SystemExit as e:  # SIGTERM: still print the steps so far, with their times
        code = e.code
    counts = {k: sum(1 for s in game.steps if s["status"] == k)
              for k in ("passed", "failed", "unavailable", "skipped")}
    out = {"strict": args.strict, "game": game.game, "seconds": round(time.monotonic() - t0, 1),
           "steps": game.steps}
    out.update(counts)
    print(json.dumps(out, indent=1), flush=True)
    if code is not None:
        return code
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
