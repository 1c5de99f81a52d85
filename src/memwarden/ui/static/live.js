// memwarden dashboard: live pages (see ui/live.py). At the interval picked in the header (kept
// in this browser; 30 s unless changed), ask /ui/live for the tenant's change marker; when it
// differs from the page's, fetch this page again and swap its live region (#results on the
// memories table, #live elsewhere) in place. The window's scroll stays where it was, ticked
// boxes stay ticked, and nothing is swapped while a field inside the region has the focus.
(function () {
  "use strict";
  var KEY = "memwarden-live";
  var DEFAULT = "30";
  var timer = null;

  function meta() {
    var tag = document.querySelector('meta[name="memwarden-live"]');
    return tag ? tag.getAttribute("content") : null;
  }

  function region(doc) {
    return doc.getElementById("results") || doc.getElementById("live");
  }

  function say(text) {
    var state = document.getElementById("live-state");
    if (state) state.textContent = text;
  }

  function interval() {
    try {
      var value = window.localStorage.getItem(KEY);
      return ["0", "10", "30", "60"].indexOf(value) >= 0 ? value : DEFAULT;
    } catch (e) {
      return DEFAULT;
    }
  }

  function refresh(marker) {
    var here = region(document);
    if (!here) return;
    var active = document.activeElement;
    var typing = active && (active.tagName === "TEXTAREA" || active.tagName === "SELECT" ||
      (active.tagName === "INPUT" && !/^(checkbox|radio|submit|button|hidden)$/.test(active.type)));
    if (typing && here.contains(active)) {
      return; // the user is typing in it: try again at the next tick
    }
    fetch(window.location.href, { credentials: "same-origin", headers: { "x-memwarden-live": "1" } })
      .then(function (response) { return response.ok ? response.text() : null; })
      .then(function (html) {
        if (html === null) return;
        var doc = new DOMParser().parseFromString(html, "text/html");
        var fresh = region(doc);
        if (!fresh) return;
        var ticked = Array.prototype.map.call(here.querySelectorAll("input[type=checkbox]:checked"), function (box) {
          return box.name + "=" + box.value;
        });
        var x = window.scrollX, y = window.scrollY;
        here.replaceWith(fresh);
        Array.prototype.forEach.call(fresh.querySelectorAll("input[type=checkbox]"), function (box) {
          if (ticked.indexOf(box.name + "=" + box.value) >= 0) box.checked = true;
        });
        var tag = document.querySelector('meta[name="memwarden-live"]');
        var next = doc.querySelector('meta[name="memwarden-live"]');
        if (tag && next) tag.setAttribute("content", next.getAttribute("content"));
        var data = doc.getElementById("chart-data");
        var old = document.getElementById("chart-data");
        if (data && old) old.textContent = data.textContent;
        window.scrollTo(x, y);
        document.dispatchEvent(new CustomEvent("memwarden:theme")); // redraws the charts, if any
        say("updated " + new Date().toLocaleTimeString());
      })
      .catch(function () { say("could not refresh"); });
  }

  function tick() {
    fetch("/ui/live", { credentials: "same-origin" })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (answer) {
        if (answer && answer.marker && answer.marker !== meta()) refresh(answer.marker);
      })
      .catch(function () { say("offline"); });
  }

  function start() {
    if (timer !== null) window.clearInterval(timer);
    timer = null;
    var seconds = parseInt(interval(), 10);
    if (seconds > 0) timer = window.setInterval(tick, seconds * 1000);
    say(seconds > 0 ? "" : "paused");
  }

  document.addEventListener("DOMContentLoaded", function () {
    var select = document.getElementById("live-every");
    if (!select || !meta()) return;
    select.value = interval();
    select.closest(".live").hidden = false;
    select.addEventListener("change", function () {
      try { window.localStorage.setItem(KEY, select.value); } catch (e) { /* this page only */ }
      start();
    });
    start();
  });
})();
