// memwarden dashboard: draws the overview's charts from the page's JSON data block.
// Loaded as a file (the Content-Security-Policy allows no inline script); every chart's
// numbers are also in a table on the page, so nothing depends on this script.
// Each canvas sits in a .chart-box of fixed height (app.css): with maintainAspectRatio off,
// Chart.js takes the box's size, so a chart never grows with the page's width.
(function () {
  "use strict";
  var palette = ["#1f5fa8", "#c2410c", "#15803d", "#7e22ce", "#a16207", "#0e7490", "#be123c", "#4d7c0f"];
  var months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
  var charts = [];

  function css(name) {
    return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  }

  // "2026-03-02" -> "Mar 2": a dozen dates fit under a chart without turning sideways.
  function day(label) {
    var parts = String(label).split("-");
    if (parts.length !== 3) return String(label);
    return months[parseInt(parts[1], 10) - 1] + " " + parseInt(parts[2], 10);
  }

  function bars(id, labels, series, stacked, xTitle, yTitle) {
    var canvas = document.getElementById(id);
    if (!canvas || typeof Chart === "undefined") return;
    var names = Object.keys(series);
    var datasets = names.map(function (name, i) {
      return { label: name, data: series[name], backgroundColor: palette[i % palette.length], maxBarThickness: 28 };
    });
    var ink = css("--fg") || "#1a1a1a";
    var grid = css("--line") || "#d4d4d4";
    var axis = function (title) {
      return { display: true, text: title, color: ink, font: { size: 12 } };
    };
    charts.push(new Chart(canvas, {
      type: "bar",
      data: { labels: labels.map(day), datasets: datasets },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        plugins: {
          legend: { display: names.length > 1, position: "bottom", labels: { color: ink, boxWidth: 12 } }
        },
        scales: {
          x: {
            stacked: stacked,
            title: axis(xTitle),
            grid: { display: false },
            ticks: { color: ink, autoSkip: true, maxRotation: 0, autoSkipPadding: 12 }
          },
          y: {
            stacked: stacked,
            beginAtZero: true,
            title: axis(yTitle),
            grid: { color: grid },
            ticks: { color: ink, precision: 0, maxTicksLimit: 6 }
          }
        }
      }
    }));
  }

  function draw() {
    var block = document.getElementById("chart-data");
    if (!block) return;
    charts.forEach(function (chart) { chart.destroy(); });
    charts = [];
    var data = JSON.parse(block.textContent);
    bars("chart-added", data.weeks, data.added, true, "week starting", "memories added");
    var answered = data.searches.map(function (n, i) { return n - data.degraded[i]; });
    bars("chart-searches", data.days, { "full (keyword + vector)": answered, "degraded": data.degraded }, true,
      "day", "searches");
    bars("chart-actions", data.days, data.actions, true, "day", "audit rows");
  }

  // A theme switch redraws the charts in the new theme's ink.
  document.addEventListener("memwarden:theme", draw);
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", draw);
  } else {
    draw();
  }
})();
