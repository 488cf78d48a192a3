"""A small Chrome DevTools Protocol driver for the end-to-end browser tests.

Launches Debian's headless Chromium with its own profile directory and a DevTools port chosen by
Chromium itself (--remote-debugging-port=0, read back from <profile>/DevToolsActivePort, so no
port race), talks CDP over one browser-level WebSocket (python3-websocket) with flattened target
sessions, and gives each simulated person a Page in a separate browser context (own cookie jar).

Contract: every wait polls with a deadline and raises CdpError naming what it waited for; nothing
sleeps as an assertion. Browser.close() (also on exit, on SIGTERM and from `with`) ends Chromium
and its process group. Not for production code.
"""

import base64
import ctypes
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import websocket  # Debian package python3-websocket

CHROMIUM = "/usr/bin/chromium"
PR_SET_PDEATHSIG = 1


def _die_with_parent():
    # In the child before exec: Chromium gets SIGKILL when this Python process dies, however.
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except OSError:
        pass


def close_on_sigterm():
    """SIGTERM raises SystemExit, so `with Browser()` and finally blocks close Chromium."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))


class CdpError(Exception):
    """A CDP command failed, or a wait ran out of time."""


class Browser:
    """One headless Chromium process. Use as a context manager, or call close()."""

    def __init__(self, chromium=CHROMIUM, profile_dir=None, timeout=60.0, log_path=None):
        self.timeout = timeout
        self._own_profile = profile_dir is None
        self.profile = profile_dir or tempfile.mkdtemp(prefix="adj-cdp-")
        os.makedirs(self.profile, exist_ok=True)
        self._log = open(log_path or os.path.join(self.profile, "chromium.log"), "wb")
        self._next_id = 0
        self._events = []
        self.dialogs = []  # messages of the JavaScript dialogs accepted
        self._ws = None
        self.proc = subprocess.Popen(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--no-default-browser-check", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--disable-extensions",
             "--password-store=basic", "--use-mock-keychain", "--window-size=1200,900",
             "--remote-debugging-port=0", "--remote-debugging-address=127.0.0.1",
             "--user-data-dir=" + self.profile, "about:blank"],
            stdin=subprocess.DEVNULL, stdout=self._log, stderr=subprocess.STDOUT,
            start_new_session=True, preexec_fn=_die_with_parent)
        try:
            self._ws = websocket.create_connection(self._devtools_url(), timeout=timeout,
                                                   suppress_origin=True)
        except Exception:
            self.close()
            raise

    def _devtools_url(self):
        """The browser endpoint Chromium writes into DevToolsActivePort once it listens."""
        path = os.path.join(self.profile, "DevToolsActivePort")
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise CdpError("chromium exited with %s before opening its DevTools port"
                               % self.proc.returncode)
            try:
                with open(path) as f:
                    lines = f.read().split("\n")
                if len(lines) >= 2 and lines[0].strip() and lines[1].strip():
                    return "ws://127.0.0.1:%s%s" % (lines[0].strip(), lines[1].strip())
            except FileNotFoundError:
                pass
            time.sleep(0.05)
        raise CdpError("chromium did not open its DevTools port within %.0f s" % self.timeout)

    # ---- protocol ----

    def call(self, method, params=None, session=None, timeout=None):
        """Sends one command and returns its result; raises CdpError on an error answer."""
        self._next_id += 1
        mid = self._next_id
        msg = {"id": mid, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        self._ws.send(json.dumps(msg))
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            m = self._recv(deadline, method)
            if m.get("id") == mid:
                if "error" in m:
                    raise CdpError("%s: %s" % (method, m["error"].get("message", m["error"])))
                return m.get("result", {})
            if m.get("method") == "Page.javascriptDialogOpening":
                # An alert or confirm() would block every script in the page: accept it, as a
                # user clicking OK would, and keep it for dialogs().
                self.dialogs.append(m.get("params", {}).get("message", ""))
                self._next_id += 1
                self._ws.send(json.dumps({"id": self._next_id,
                                          "method": "Page.handleJavaScriptDialog",
                                          "params": {"accept": True},
                                          "sessionId": m.get("sessionId")}))
            elif "method" in m:
                self._events.append(m)
                del self._events[:-1000]  # bounded: events nobody waits for are dropped

    def _recv(self, deadline, what):
        left = deadline - time.monotonic()
        if left <= 0:
            raise CdpError("no answer to " + what)
        self._ws.settimeout(left)
        try:
            return json.loads(self._ws.recv())
        except websocket.WebSocketTimeoutException:
            raise CdpError("no answer to " + what) from None

    # ---- contexts ----

    def new_page(self, name=""):
        """A tab in a fresh browser context: its own cookies, storage and cache."""
        ctx = self.call("Target.createBrowserContext", {"disposeOnDetach": True})
        context_id = ctx["browserContextId"]
        target = self.call("Target.createTarget",
                           {"url": "about:blank", "browserContextId": context_id})
        attached = self.call("Target.attachToTarget",
                             {"targetId": target["targetId"], "flatten": True})
        page = Page(self, attached["sessionId"], context_id, name)
        page.call("Page.enable")
        page.call("Runtime.enable")
        return page

    def close(self):
        """Ends Chromium (politely, then by killing its process group) and removes the profile."""
        if self._ws is not None:
            try:
                self._ws.settimeout(5)
                self._ws.send(json.dumps({"id": 0, "method": "Browser.close", "params": {}}))
            except Exception:
                pass
            try:
                self._ws.close()
            except Exception:
                pass
            self._ws = None
        if self.proc.poll() is None:
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        # Renderers and helpers are in Chromium's process group: none may outlive the test.
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        if not self._log.closed:
            self._log.close()
        if self._own_profile:
            shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


class Page:
    """One tab with its own cookie jar. URLs are absolute."""

    def __init__(self, browser, session, context_id, name):
        self.browser = browser
        self.session = session
        self.context_id = context_id
        self.name = name
        self.timeout = browser.timeout

    def call(self, method, params=None, timeout=None):
        return self.browser.call(method, params, self.session, timeout)

    def eval(self, expression):
        """Runtime.evaluate by value; a thrown exception raises CdpError with its text."""
        r = self.call("Runtime.evaluate",
                      {"expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in r:
            d = r["exceptionDetails"]
            text = d.get("exception", {}).get("description") or d.get("text", "")
            raise CdpError("script failed on %s: %s" % (self.name, text))
        return r.get("result", {}).get("value")

    # ---- navigation ----

    def _mark(self):
        # The old document carries a marker: a load is done only when a complete document
        # without it is there (late load events of an earlier page cannot fool the wait).
        try:
            self.eval("window.__adjOld = true")
        except CdpError:
            pass

    def _wait_new_document(self, what):
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            try:
                if self.eval("window.__adjOld === undefined && "
                             "document.readyState === 'complete'"):
                    return
            except CdpError:
                pass  # the context was being replaced
            time.sleep(0.05)
        raise CdpError("%s: no new page loaded after %s" % (self.name, what))

    def goto(self, url):
        """Loads `url` and waits for the complete document; returns its HTTP status."""
        self._mark()
        r = self.call("Page.navigate", {"url": url})
        if r.get("errorText"):
            raise CdpError("%s: navigating to %s: %s" % (self.name, url, r["errorText"]))
        self._wait_new_document(url)
        return self.status()

    def status(self):
        """The HTTP status of the current document (after redirects: the last one's)."""
        return self.eval("(performance.getEntriesByType('navigation')[0] || {}).responseStatus"
                         " || 0")

    def path(self):
        return self.eval("location.pathname")

    def url(self):
        return self.eval("location.href")

    # ---- reading ----

    def html(self):
        return self.eval("document.documentElement.outerHTML")

    def text(self, selector="body"):
        """innerText of the first element matching `selector`, or None when there is none."""
        return self.eval("(() => { const e = document.querySelector(%s);"
                         " return e ? e.innerText : null; })()" % json.dumps(selector))

    def texts(self, selector):
        """innerText of every element matching `selector`."""
        return self.eval("Array.from(document.querySelectorAll(%s), e => e.innerText)"
                         % json.dumps(selector))

    def exists(self, selector):
        return bool(self.eval("!!document.querySelector(%s)" % json.dumps(selector)))

    def attrs(self, selector, attr):
        """The attribute `attr` of every element matching `selector`."""
        return self.eval("Array.from(document.querySelectorAll(%s), e => e.getAttribute(%s))"
                         % (json.dumps(selector), json.dumps(attr)))

    def wait_for(self, selector, timeout=None):
        """Polls until an element matches `selector`; raises CdpError at the deadline."""
        deadline = time.monotonic() + (timeout or self.timeout)
        while time.monotonic() < deadline:
            if self.exists(selector):
                return
            time.sleep(0.05)
        raise CdpError("%s: no %s on %s" % (self.name, selector, self.path()))

    # ---- acting ----

    def fill(self, form_selector, fields):
        """Sets fields (by name, else by id) of the form: text by value, checkboxes by bool, selects (also multiple)
        by value or list of values, checkbox groups by list of values."""
        js = """((sel, fields) => {
  const f = document.querySelector(sel);
  if (!f) return 'no form ' + sel;
  for (const [name, value] of Object.entries(fields)) {
    let els = Array.from(f.querySelectorAll('[name="' + name + '"]'));
    if (!els.length && f.querySelector('#' + CSS.escape(name))) els = [f.querySelector('#' + CSS.escape(name))];
    if (!els.length) return 'no field ' + name + ' in ' + sel;
    for (const e of els) {
      if (e.type === 'checkbox' || e.type === 'radio') {
        e.checked = Array.isArray(value) ? value.includes(e.value)
                  : (typeof value === 'boolean' ? value : e.value === String(value));
      } else if (e.tagName === 'SELECT' && e.multiple) {
        const want = Array.isArray(value) ? value : [value];
        for (const o of e.options) o.selected = want.includes(o.value);
      } else {
        e.value = Array.isArray(value) ? value.join(',') : String(value);
      }
      e.dispatchEvent(new Event('input', {bubbles: true}));
      e.dispatchEvent(new Event('change', {bubbles: true}));
    }
  }
  return 'ok';
})(%s, %s)""" % (json.dumps(form_selector), json.dumps(fields))
        result = self.eval(js)
        if result != "ok":
            raise CdpError("%s: %s" % (self.name, result))

    def submit(self, form_selector, fields=None, button=None):
        """Fills `fields`, clicks the form's submit button (`button`: a selector inside the form,
        default its first submit button) and waits for the answer page; returns its status."""
        if fields:
            self.fill(form_selector, fields)
        js = """((sel, button) => {
  const f = document.querySelector(sel);
  if (!f) return 'no form ' + sel;
  const b = button ? f.querySelector(button)
                   : f.querySelector('button[type=submit], input[type=submit], button:not([type])');
  if (b) b.click(); else f.requestSubmit();
  return 'ok';
})(%s, %s)""" % (json.dumps(form_selector), json.dumps(button))
        self._mark()
        result = self.eval(js)
        if result != "ok":
            raise CdpError("%s: %s" % (self.name, result))
        self._wait_new_document("submitting " + form_selector)
        return self.status()

    def click(self, selector):
        """Clicks the element and waits for the page it loads."""
        self._mark()
        ok = self.eval("(() => { const e = document.querySelector(%s); if (!e) return false;"
                       " e.click(); return true; })()" % json.dumps(selector))
        if not ok:
            raise CdpError("%s: nothing to click at %s" % (self.name, selector))
        self._wait_new_document("clicking " + selector)
        return self.status()

    def cookies(self):
        """The cookies of this page's browser context, as {name: value}."""
        r = self.browser.call("Storage.getCookies", {"browserContextId": self.context_id})
        return {c["name"]: c["value"] for c in r.get("cookies", [])}

    def screenshot(self, path):
        """Saves a PNG of the viewport; returns its size in bytes."""
        data = base64.b64decode(self.call("Page.captureScreenshot", {"format": "png"})["data"])
        with open(path, "wb") as f:
            f.write(data)
        return len(data)
