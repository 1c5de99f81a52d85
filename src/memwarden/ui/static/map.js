// memwarden dashboard: the memory map. Draws the page's JSON graph (ui/memory_map.py) with
// Cytoscape.js (vendored); a memory node opens its page, a project or tag node lists its
// memories; the "Show" boxes hide a kind of node or link.
(function () {
  "use strict";
  var cy = null;

  function css(name) {
    return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  }

  function draw() {
    var box = document.getElementById("map-canvas");
    var block = document.getElementById("map-data");
    if (!box || !block || typeof cytoscape === "undefined") return;
    if (cy) cy.destroy();
    var ink = css("--fg"), line = css("--line"), accent = css("--accent");
    cy = cytoscape({
      container: box,
      elements: JSON.parse(block.textContent),
      wheelSensitivity: 0.3,
      style: [
        { selector: "node", style: { "label": "data(label)", "font-size": 9, "color": ink, "text-wrap": "ellipsis",
          "text-max-width": 120, "width": 10, "height": 10, "background-color": accent } },
        { selector: "node[kind = 'project']", style: { "shape": "round-rectangle", "width": 22, "height": 22,
          "background-color": css("--why-recency"), "font-size": 11, "font-weight": "bold" } },
        { selector: "node[kind = 'tag']", style: { "shape": "diamond", "width": 14, "height": 14,
          "background-color": css("--why-coverage") } },
        { selector: "node[kind = 'thread']", style: { "shape": "hexagon", "width": 16, "height": 16,
          "background-color": css("--why-vector") } },
        { selector: "node[?flagged]", style: { "border-width": 2, "border-color": css("--bad") } },
        { selector: "edge", style: { "width": 1, "line-color": line, "curve-style": "haystack" } },
        { selector: "edge[kind = 'duplicate']", style: { "width": 2, "line-color": css("--bad"),
          "line-style": "dashed", "curve-style": "bezier" } },
        { selector: ".hidden", style: { "display": "none" } }
      ],
      layout: { name: "preset" }
    });
    // A force layout reads well up to a few hundred nodes; beyond that its cost grows fast, so a
    // large graph is laid out in rings (projects and tags at the centre) instead.
    var large = cy.nodes().length > 400;
    cy.layout(large
      ? { name: "concentric", animate: false, minNodeSpacing: 4,
          concentric: function (node) { return node.data("kind") === "memory" ? 1 : 2; }, levelWidth: function () { return 1; } }
      : { name: "cose", animate: false, randomize: false, numIter: 400, nodeRepulsion: function () { return 6000; } }
    ).run();
    cy.on("tap", "node", function (event) {
      var data = event.target.data();
      if (data.kind === "memory") {
        window.location.href = "/ui/memories/" + encodeURIComponent(data.memory);
      } else if (data.kind === "project" || data.kind === "tag") {
        window.location.href = "/ui/memories?" + data.kind + "=" + encodeURIComponent(data.name);
      }
    });
    filter();
  }

  function filter() {
    if (!cy) return;
    var boxes = document.querySelectorAll("#map-layers input[type=checkbox]");
    Array.prototype.forEach.call(boxes, function (input) {
      var kind = input.value;
      var chosen = cy.elements("[kind = '" + kind + "']");
      if (input.checked) { chosen.removeClass("hidden"); } else { chosen.addClass("hidden"); }
    });
  }

  document.addEventListener("change", function (event) {
    if (event.target.closest && event.target.closest("#map-layers")) filter();
  });
  document.addEventListener("memwarden:theme", draw);
  // Laid out after the page has loaded, so the page is usable (and its list readable) at once.
  function later() { window.setTimeout(draw, 0); }
  if (document.readyState === "complete") {
    later();
  } else {
    window.addEventListener("load", later);
  }
})();
