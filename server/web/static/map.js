// Zoom for every map on the page (templates/_map.mustache) without a reload: buttons that widen
// the SVG inside its box, which then scrolls (pan by dragging or scrolling; phones pinch as
// usual). Without this script the zoom links still reload the page at the chosen zoom.
(function () {
  "use strict";
  var LEVELS = [1, 1.5, 2, 3, 4];

  function setup(box) {
    var svg = box.querySelector("svg.map");
    var caption = box.parentNode.querySelector(".map-zoom");
    if (!svg || !caption || caption.querySelector("button")) return;
    var level = 0;
    function show() {
      var z = LEVELS[level];
      svg.style.width = z * 100 + "%";
      box.classList.toggle("zoomed", z > 1);
      label.textContent = z + "\u00d7";
    }
    function button(text, title, step) {
      var b = document.createElement("button");
      b.type = "button";
      b.className = "secondary map-zoom-" + (step > 0 ? "in" : "out");
      b.textContent = text;
      b.title = title;
      b.addEventListener("click", function () {
        level = Math.max(0, Math.min(LEVELS.length - 1, level + step));
        show();
      });
      return b;
    }
    var label = document.createElement("span");
    label.className = "map-zoom-level";
    var bar = document.createElement("span");
    bar.className = "map-zoom-buttons";
    bar.appendChild(button("\u2212", "Zoom out", -1));
    bar.appendChild(label);
    bar.appendChild(button("+", "Zoom in", 1));
    caption.insertBefore(bar, caption.firstChild);
    if (box.classList.contains("zoomed")) label.textContent = "";  // zoomed by a link already
    else show();
  }

  function init() {
    var boxes = document.querySelectorAll(".map-box");
    for (var i = 0; i < boxes.length; ++i) setup(boxes[i]);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
