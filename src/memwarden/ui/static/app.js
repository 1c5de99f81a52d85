// memwarden dashboard: draws the overview's charts from the page's JSON data block.
// Loaded as a file (the Content-Security-Policy allows no inline script); every chart's
// numbers are also in a table on the page, so nothing depends on this script.
(function () {
  "use strict";
  var palette = ["#1f5fa8", "#c2410c", "#15803d", "#7e22ce", "#a16207", "#0e7490", "#be123c", "#4d7c0f"];

  function bars(id, labels, series, stacked) {
    var canvas = document.getElementById(id);
    if (!canvas || typeof Chart === "undefined") return;
    var datasets = Object.keys(series).map(function (name, i) {
      return { label: name, data: series[name], backgroundColor: palette[i % palette.length] };
    });
    new Chart(canvas, {
      type: "bar",
      data: { labels: labels, datasets: datasets },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        scales: { x: { stacked: stacked }, y: { stacked: stacked, beginAtZero: true, ticks: { precision: 0 } } }
      }
    });
  }

  function draw() {
    var block = document.getElementById("chart-data");
    if (!block) return;
    var data = JSON.parse(block.textContent);
    bars("chart-added", data.weeks, data.added, true);
    var answered = data.searches.map(function (n, i) { return n - data.degraded[i]; });
    bars("chart-searches", data.days, { "full (keyword + vector)": answered, "degraded": data.degraded }, true);
    bars("chart-actions", data.days, data.actions, true);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", draw);
  } else {
    draw();
  }
})();
