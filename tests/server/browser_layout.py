"""Pages at phone and desktop widths, the order builder and local times, checked in Chromium.

Used by tests/server/browser_game.py (the issue 13 steps of the closing scenario): one Chromium
session, each page loaded once and looked at in two device metrics (Emulation.setDeviceMetrics-
Override), so a tour of every page kind costs about a second a page.

Contract of check_layout(): at PHONE width the document is no wider than the screen
(documentElement.scrollWidth <= innerWidth == 390: nothing scrolls sideways), <main> is there,
visible, has text and lies within the screen; at both widths a PNG of the page (its top, at most
MAX_SHOT_HEIGHT CSS pixels) is saved as layout_<name>_<phone|desktop>.png when a directory is
given. A failed check raises LayoutError naming the page and the widest elements.
Also at PHONE width: a row of a table with a header row takes at most ROW_LINES lines when it
has at most ROW_CELLS cells, no form control, and at most ROW_CHARS characters of text with its
cells' data-label names (what two lines of a phone hold).
"""

import base64
import datetime
import json
import os
import re
import zoneinfo

PHONE = {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True}
DESKTOP = {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False}
MAP_MIN_WIDTH = 800
maps_measured = {}  # page name -> the map's width at DESKTOP, for the pages that have one
MAX_SHOT_HEIGHT = 3000
ROW_CELLS, ROW_CHARS, ROW_LINES = 5, 60, 2
rows_checked = {}  # page name -> how many table rows check_here measured at PHONE width

# The rows of the tables with a header row that the contract above covers: how many, and those
# that take more lines (lines told apart by the tops of their text's boxes).
_ROWS = """((cells, chars, lines) => {
  const bad = [];
  let checked = 0;
  for (const t of document.querySelectorAll('table')) {
    if (!t.querySelector(':scope > thead')) continue;
    for (const tr of t.querySelectorAll(':scope > tbody > tr')) {
      const tds = Array.from(tr.children);
      if (tds.length > cells || tr.querySelector('input, select, textarea, button')) continue;
      const text = tds.map(c => (c.dataset.label ? c.dataset.label + ': ' : '') +
                                c.innerText.trim()).join(' ');
      if (text.length > chars) continue;
      const tops = [];
      for (const c of tds) {
        const range = document.createRange();
        range.selectNodeContents(c);
        for (const b of range.getClientRects())
          if (b.height > 0 && !tops.some(y => Math.abs(y - b.top) < b.height / 2)) tops.push(b.top);
      }
      checked++;
      if (tops.length > lines && bad.length < 4)
        bad.push(tops.length + ' lines: ' + text.replace(/\\s+/g, ' '));
    }
  }
  return {checked: checked, bad: bad};
})(%d, %d, %d)""" % (ROW_CELLS, ROW_CHARS, ROW_LINES)

_MEASURE = """(() => {
  const w = window.innerWidth, doc = document.documentElement;
  const main = document.querySelector('main');
  const r = main ? main.getBoundingClientRect() : null;
  const wide = [];
  if (doc.scrollWidth > w) {
    for (const e of document.querySelectorAll('body *')) {
      const b = e.getBoundingClientRect();
      if (b.right > w + 0.5 && b.width > 0) {
        wide.push(e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') +
                  (e.className && typeof e.className === 'string' ? '.' + e.className.trim()
                   .replace(/\\s+/g, '.') : '') + ' right=' + Math.round(b.right));
        if (wide.length >= 6) break;
      }
    }
  }
  const style = main ? getComputedStyle(main) : null;
  return {inner: w, scroll: doc.scrollWidth, height: doc.scrollHeight, wide: wide,
          main: !!main, mainLeft: r ? r.left : 0, mainRight: r ? r.right : 0,
          mainHeight: r ? r.height : 0,
          mainVisible: !!style && style.display !== 'none' && style.visibility !== 'hidden',
          mainText: main ? main.innerText.trim().length : 0};
})()"""


class LayoutError(Exception):
    """A page is wider than the phone screen, or its main content is not visible."""


def set_metrics(page, metrics):
    page.call("Emulation.setDeviceMetricsOverride", metrics)


def clear_metrics(page):
    page.call("Emulation.clearDeviceMetricsOverride")


def _shot(page, path, metrics, height):
    clip = {"x": 0, "y": 0, "width": metrics["width"],
            "height": max(1, min(height, MAX_SHOT_HEIGHT)), "scale": 1}
    data = page.call("Page.captureScreenshot", {"format": "png", "clip": clip,
                                                "captureBeyondViewport": True})["data"]
    with open(path, "wb") as f:
        f.write(base64.b64decode(data))


def measure(page):
    return page.eval(_MEASURE)


def check_here(page, name, shots=""):
    """Checks the page as it is now loaded (no navigation), at both widths; returns the phone
    measurements. Leaves the desktop metrics set."""
    set_metrics(page, PHONE)
    m = measure(page)
    problems = []
    if m["inner"] != PHONE["width"]:
        problems.append("the layout viewport is %s px wide, not %d (the page was zoomed out to"
                        " fit)" % (m["inner"], PHONE["width"]))
    if m["scroll"] > m["inner"]:
        problems.append("it scrolls sideways: %s px of content in %s px (%s)"
                        % (m["scroll"], m["inner"], ", ".join(m["wide"]) or "?"))
    if not m["main"] or not m["mainVisible"] or m["mainHeight"] <= 0 or m["mainText"] == 0:
        problems.append("its main content is not visible")
    elif m["mainLeft"] < -0.5 or m["mainRight"] > m["inner"] + 0.5:
        problems.append("<main> spans %.0f..%.0f px" % (m["mainLeft"], m["mainRight"]))
    rows = page.eval(_ROWS)
    rows_checked[name] = rows["checked"]
    if rows["bad"]:
        problems.append("table rows take more than %d lines: %s"
                        % (ROW_LINES, " | ".join(rows["bad"])))
    if shots:
        _shot(page, os.path.join(shots, "layout_%s_phone.png" % name), PHONE, m["height"])
    set_metrics(page, DESKTOP)
    d = measure(page)
    if d["scroll"] > d["inner"]:
        problems.append("at %d px it scrolls sideways: %s px (%s)"
                        % (DESKTOP["width"], d["scroll"], ", ".join(d["wide"]) or "?"))
    # A map uses the page's width: at least MAP_MIN_WIDTH px at 1280 (issue 31).
    map_width = page.eval("(() => { const s = document.querySelector('.map-box svg.map');"
                          " return s ? s.getBoundingClientRect().width : null; })()")
    if map_width is not None and map_width < MAP_MIN_WIDTH:
        problems.append("at %d px the map is %.0f px wide, under %d"
                        % (DESKTOP["width"], map_width, MAP_MIN_WIDTH))
    if map_width is not None:
        maps_measured[name] = map_width
    if shots:
        _shot(page, os.path.join(shots, "layout_%s_desktop.png" % name), DESKTOP, d["height"])
    if problems:
        raise LayoutError("%s (%s): %s" % (name, page.eval("location.pathname"),
                                           "; ".join(problems)))
    return m


def check_layout(page, url, name, shots="", status=200):
    """Loads `url` (expecting HTTP `status`) and checks it with check_here."""
    got = page.goto(url)
    if got != status:
        raise LayoutError("%s: %s answered %s, not %s" % (name, url, got, status))
    return check_here(page, name, shots)


def tour(pages, shots=""):
    """pages: [(page, url, name[, status])]. Checks them all, then returns to desktop metrics
    cleared; raises LayoutError listing every page that failed."""
    failures, done = [], []
    for item in pages:
        page, url, name = item[:3]
        status = item[3] if len(item) > 3 else 200
        try:
            check_layout(page, url, name, shots, status)
            done.append(name)
        except LayoutError as e:
            failures.append(str(e))
    for page in {id(p[0]): p[0] for p in pages}.values():
        clear_metrics(page)
    if failures:
        raise LayoutError(" | ".join(failures))
    return done


# ---- the order builder ----

def builder_add(page, area, verb, target="", count=""):
    """Chooses in the builder's lists and clicks its button; returns the error it shows, or ""."""
    js = """((area, verb, target, count) => {
  const set = (id, v) => {
    const e = document.getElementById(id);
    e.value = v;
    e.dispatchEvent(new Event('change', {bubbles: true}));
    return e.value === v;
  };
  if (!set('ob-action', verb)) return 'no action ' + verb;
  if (area && !set('ob-area', area)) return 'no area ' + area;
  if (target && !set('ob-target', target)) return 'no target ' + target + ' among ' +
      Array.from(document.getElementById('ob-target').options, o => o.value).join(',');
  document.getElementById('ob-count').value = count;
  document.getElementById('ob-add').click();
  const err = document.getElementById('ob-error');
  return err.hidden ? '' : 'builder error: ' + err.textContent;
})(%s, %s, %s, %s)""" % tuple(json.dumps(x) for x in (area, verb, target, count))
    return page.eval(js)


def builder_options(page, select_id):
    return page.eval("Array.from(document.getElementById(%s).options, o => o.value)"
                     % json.dumps(select_id))


# ---- local times ----

def local_times(page):
    """[(datetime attribute, UTC text, local text or None)] of every <time> on the page."""
    return page.eval("""Array.from(document.querySelectorAll('time[datetime]'), t => {
  const n = t.nextElementSibling;
  return [t.getAttribute('datetime'), t.textContent,
          n && n.classList.contains('local-time') ? n.textContent : null];
})""")


def expected_local(iso, zone):
    """'YYYY-MM-DD HH:MM' of the UTC instant `iso` ("...Z") in the IANA `zone`."""
    when = datetime.datetime.strptime(iso, "%Y-%m-%dT%H:%M:%SZ").replace(
        tzinfo=datetime.timezone.utc)
    return when.astimezone(zoneinfo.ZoneInfo(zone)).strftime("%Y-%m-%d %H:%M")


def check_local_times(page, zone):
    """With the page loaded under Emulation.setTimezoneOverride(zone): every <time> shows its
    UTC text and, beside it, the same instant in `zone`. Returns how many were checked."""
    times = local_times(page)
    if not times:
        raise LayoutError("no <time datetime> on " + page.eval("location.pathname"))
    for iso, text, local in times:
        if not re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", iso or ""):
            raise LayoutError("a <time> has datetime %r" % iso)
        if text != iso[:10] + " " + iso[11:16] + " UTC":
            raise LayoutError("<time datetime=%s> reads %r" % (iso, text))
        want = expected_local(iso, zone)
        if not local or want not in local:
            raise LayoutError("<time datetime=%s> shows local time %r, expected %s in %s"
                              % (iso, local, want, zone))
    return len(times)
