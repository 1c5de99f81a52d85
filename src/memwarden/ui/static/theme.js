// memwarden dashboard: the light/dark switch. Without a choice the page follows the system
// (prefers-color-scheme, in app.css); a choice is kept in this browser's localStorage and set
// as data-theme on <html> before the page paints (this file loads in <head>, not deferred).
(function () {
  "use strict";
  var KEY = "memwarden-theme";
  var root = document.documentElement;

  function stored() {
    try {
      var value = window.localStorage.getItem(KEY);
      return value === "light" || value === "dark" ? value : "system";
    } catch (e) {
      return "system"; // storage refused (private mode, file policy): follow the system
    }
  }

  function apply(choice) {
    if (choice === "system") {
      root.removeAttribute("data-theme");
    } else {
      root.setAttribute("data-theme", choice);
    }
  }

  apply(stored());
  document.addEventListener("DOMContentLoaded", function () {
    var select = document.getElementById("theme-switch");
    if (!select) return;
    select.value = stored();
    select.closest(".theme").hidden = false;
    select.addEventListener("change", function () {
      try {
        if (select.value === "system") {
          window.localStorage.removeItem(KEY);
        } else {
          window.localStorage.setItem(KEY, select.value);
        }
      } catch (e) { /* not kept: applies to this page only */ }
      apply(select.value);
      document.dispatchEvent(new CustomEvent("memwarden:theme"));
    });
  });
})();
