// The order builder on the player's page: lists drawn from the map (the page's
// <script type="application/json" id="order-data">, server/web/order_builder.h) write an order
// line into the order textarea, exactly as a player could type it. The lists hold only what the
// server's validator accepts for this player (the model's "legal"). Clicking an area of the map
// picks it as the builder's area, and clicking one of its neighbours then picks the target. The
// textarea stays the one thing sent; without this script the builder stays hidden and the page
// works as before.
(function () {
  "use strict";
  var COUNT_WORDS = { MOVE: "Armies", ASSAULT: "Armies", PROBE: "Armies", OVERRUN: "Armies",
                      RAID: "Armies", LEVY: "Levies", ORDER: "BPs", GIFT: "BPs",
                      MIGRATE: "People" };

  function $(id) { return document.getElementById(id); }

  function fill(select, items) {  // items: [[value, text]]; text is set as text, never as HTML
    var keep = select.value;
    while (select.options.length) select.remove(0);
    items.forEach(function (it) { select.add(new Option(it[1], it[0])); });
    if (items.some(function (it) { return it[0] === keep; })) select.value = keep;
  }

  function init() {
    var holder = $("order-data"), box = $("order-builder"), text = $("orders");
    if (!holder || !box || !text) return;
    var data;
    try {
      data = JSON.parse(holder.textContent);
    } catch (e) {
      return;
    }
    if (!data || !Array.isArray(data.actions) || !Array.isArray(data.own)) return;
    var areas = data.areas || {};
    var area = $("ob-area"), verb = $("ob-action"), target = $("ob-target"), count = $("ob-count");
    var add = $("ob-add"), error = $("ob-error");
    var byVerb = {};
    data.actions.forEach(function (a) { byVerb[a.verb] = a; });

    function label(code) {
      var a = areas[code];
      return a && a.name ? code + " " + a.name : code;
    }

    var legal = data.legal || {};
    var kingdomName = {};
    (data.kingdoms || []).forEach(function (k) { kingdomName[k.code] = k.name; });
    fill(verb, data.actions.map(function (a) { return [a.verb, a.verb]; }));

    function refresh() {
      var a = byVerb[verb.value];
      if (!a) return;
      var choices = legal[a.verb] || {};
      area.disabled = a.area === "none";
      if (a.area !== "none") {
        fill(area, data.own.filter(function (c) { return choices[c]; })
                       .map(function (c) { return [c, label(c)]; }));
      }
      var list = choices[a.area === "none" ? "" : area.value] || [];
      var items = [];
      list.forEach(function (c) {
        if (c === "") {
          if (a.target === "adjacent-optional") items.push(["", "(keep the current one)"]);
        } else if (a.target === "kingdom") {
          items.push([c, kingdomName[c] ? c + " " + kingdomName[c] : c]);
        } else {
          items.push([c, label(c)]);
        }
      });
      fill(target, items);
      target.disabled = a.target === "none";
      count.disabled = a.count === "none";
      count.placeholder = a.count === "armies" ? "all" : a.count === "optional" ? "blank" : "";
      var lab = count.parentNode.firstChild;
      if (lab && lab.nodeType === 3) lab.nodeValue = (COUNT_WORDS[a.verb] || "Number") + " ";
      error.hidden = true;
    }

    function line() {
      var a = byVerb[verb.value];
      if (!a) return { error: "Choose an action." };
      var words = [a.verb];
      if (a.area !== "none") {
        if (!area.value) return { error: "You hold no area for this action." };
        words.push(area.value);
      }
      if (a.target !== "none" && target.value) words.push(target.value);
      else if (a.target !== "none" && a.target !== "adjacent-optional")
        return { error: "No area or kingdom to choose for " + a.verb + " here." };
      var n = count.value.trim().toUpperCase();
      if (a.count !== "none" && n) {
        var ok = a.count === "armies" ? /^([0-9]{1,6}|AB-[0-9]{1,6})$/.test(n)
                                      : /^[0-9]{1,6}$/.test(n);
        if (!ok) {
          return { error: a.count === "armies" ? "Armies: blank for all, a number, or AB-n."
                                               : "Give a whole number." };
        }
        words.push(n);
      } else if (a.count === "required") {
        return { error: a.verb + " needs a number." };
      }
      return { text: words.join(" ") };
    }

    function append(orderLine) {
      var lines = text.value.replace(/\r\n?/g, "\n").split("\n");
      while (lines.length && lines[lines.length - 1].trim() === "") lines.pop();
      var end = -1;
      for (var i = 0; i < lines.length; ++i) {
        if (/^\s*END\b/i.test(lines[i])) { end = i; break; }
      }
      if (end >= 0) lines.splice(end, 0, orderLine);  // after END a line would be ignored
      else lines.push(orderLine);
      text.value = lines.join("\n") + "\n";
      text.dispatchEvent(new Event("input", { bubbles: true }));
    }

    area.addEventListener("change", refresh);
    verb.addEventListener("change", refresh);
    // The map: a click on an area the builder may use picks it; the next click, on a target it
    // offers, picks that (the map's areas are <g data-code="..."> in the SVG).
    var map = document.querySelector("#orders-map svg");
    var targetNext = false;
    if (map) {
      map.addEventListener("click", function (ev) {
        var g = ev.target.closest ? ev.target.closest("[data-code]") : null;
        if (!g) return;
        var code = g.getAttribute("data-code");
        var has = function (sel, v) {
          for (var i = 0; i < sel.options.length; ++i) if (sel.options[i].value === v) return true;
          return false;
        };
        var asTarget = !target.disabled && has(target, code) && code !== area.value;
        if (asTarget && (targetNext || area.disabled || !has(area, code))) {
          target.value = code;
          targetNext = false;
        } else if (!area.disabled && has(area, code)) {
          area.value = code;
          refresh();
          targetNext = true;
        } else {
          return;
        }
        var picked = $("ob-picked");
        if (picked) picked.textContent = "Picked " + label(code) + ".";
      });
    }
    add.addEventListener("click", function () {
      var r = line();
      if (r.error) {
        error.textContent = r.error;
        error.hidden = false;
        return;
      }
      error.hidden = true;
      append(r.text);
    });
    refresh();
    box.hidden = false;
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
