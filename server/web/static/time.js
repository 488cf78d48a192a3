// Adds the reader's local time after every <time datetime="...Z"> on the page (the page itself
// shows UTC). Nothing happens when the reader's zone is UTC or the browser cannot tell it.
(function () {
  "use strict";
  function run() {
    var zone;
    try {
      zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    } catch (e) {
      return;
    }
    if (!zone || zone === "UTC" || zone === "Etc/UTC") return;
    var fmt = new Intl.DateTimeFormat("en-GB", {
      timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit",
      minute: "2-digit", hourCycle: "h23", timeZoneName: "short"
    });
    var times = document.querySelectorAll("time[datetime]");
    for (var i = 0; i < times.length; ++i) {
      var t = times[i];
      if (t.getAttribute("data-local")) continue;
      var when = new Date(t.getAttribute("datetime"));
      if (isNaN(when.getTime())) continue;
      var p = {};
      fmt.formatToParts(when).forEach(function (x) { p[x.type] = x.value; });
      var span = document.createElement("span");
      span.className = "local-time";
      span.textContent = " (" + p.year + "-" + p.month + "-" + p.day + " " + p.hour + ":" +
                         p.minute + " " + (p.timeZoneName || zone) + ", your time)";
      t.setAttribute("data-local", "1");
      t.parentNode.insertBefore(span, t.nextSibling);
    }
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", run);
  else run();
})();
