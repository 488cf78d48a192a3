"""Reads map pages (HTML files, each with one <svg class="map">) in headless Chromium and checks
the labels from their real bounding boxes: no two areas' labels overlap, and every area that is no
sea has a label. Used by tests/server/map_labels_browser_test.cc.

Usage: map_labels_check.py --profile DIR [--overlaps-only] FILE...   Prints one line per file;
exit 1 on a failure. --overlaps-only: an area without a label is not a failure (a map too dense
for every label at 1x), an overlap still is.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import cdp  # noqa: E402

CHECK = r"""
(() => {
  const svg = document.querySelector("svg.map");
  const groups = Array.from(svg.querySelectorAll(".labels > g[data-for]"));
  const boxes = [];
  for (const g of groups)
    for (const el of g.querySelectorAll("text, rect, path, circle, polygon, line")) {
      const r = el.getBoundingClientRect();
      if (r.width > 0 && r.height > 0)
        boxes.push({who: g.getAttribute("data-for"), l: r.left, t: r.top, r: r.right, b: r.bottom,
                    text: el.textContent || el.tagName});
    }
  const overlaps = [];
  for (let i = 0; i < boxes.length; ++i)
    for (let j = i + 1; j < boxes.length; ++j) {
      const a = boxes[i], b = boxes[j];
      if (a.who === b.who) continue;
      const w = Math.min(a.r, b.r) - Math.max(a.l, b.l), h = Math.min(a.b, b.b) - Math.max(a.t, b.t);
      if (w > 0.5 && h > 0.5) overlaps.push(a.who + " '" + a.text + "' / " + b.who + " '" + b.text + "'");
    }
  const labelled = new Set(groups.map(g => g.getAttribute("data-for")));
  const missing = Array.from(svg.querySelectorAll("g.area[data-code]"))
      .filter(g => !g.classList.contains("sea") && !labelled.has(g.getAttribute("data-code")))
      .map(g => g.getAttribute("data-code"));
  const names = groups.filter(g => g.querySelector("text.name, text.city-name")).length;
  return {areas: svg.querySelectorAll("g.area[data-code]").length, labels: groups.length,
          names: names, boxes: boxes.length, overlaps: overlaps.slice(0, 10),
          overlap_count: overlaps.length, missing: missing,
          width: svg.getBoundingClientRect().width};
})()
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--profile", required=True)
    ap.add_argument("--overlaps-only", action="store_true")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    failed = False
    with cdp.Browser(profile_dir=args.profile) as browser:
        page = browser.new_page("maps")
        page.call("Emulation.setDeviceMetricsOverride",
                  {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False})
        for f in args.files:
            page.goto("file://" + os.path.abspath(f))
            r = page.eval(CHECK)
            ok = not r["overlaps"] and (args.overlaps_only or not r["missing"])
            failed = failed or not ok
            print("%s %s: %d areas, %d labelled (%d with a name), %d boxes, %.0f px wide%s%s" % (
                "ok  " if ok else "FAIL", os.path.basename(f), r["areas"], r["labels"],
                r["names"], r["boxes"], r["width"],
                "; %d overlaps: %s" % (r["overlap_count"], r["overlaps"]) if r["overlaps"] else "",
                "; no label: %d areas" % len(r["missing"]) if r["missing"] else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
