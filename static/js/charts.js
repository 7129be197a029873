// Tooltips for the dashboard's charts. The server draws each chart as a few paths and puts
// its values in data attributes: data-first (the first day, YYYY-MM-DD), data-values (one per
// day, comma-separated; "answers/right" for the accuracy chart) and the layout: data-columns,
// data-left and data-step (bars side by side from the plot's left edge) or data-rows, data-cell,
// data-left and data-top (the heatmap's weeks as columns of 7 days). Without JavaScript each
// bar and studied day has a <title> the browser shows, and the tables under each chart give the
// same numbers; with it, those titles give way to this tooltip so two never show at once.
(function () {
  "use strict";

  var tip = null;

  function addDays(iso, days) {
    var parts = iso.split("-").map(Number);
    var date = new Date(Date.UTC(parts[0], parts[1] - 1, parts[2] + days));
    return date.toLocaleDateString(undefined, { weekday: "short", day: "numeric", month: "short", year: "numeric", timeZone: "UTC" });
  }

  function label(kind, value) {
    if (kind === "answers") {
      var numbers = value.split("/");
      return numbers[0] + " answer" + (numbers[0] === "1" ? "" : "s") + ", " + numbers[1] + " right";
    }
    return value + (kind === "due" ? " due" : " review" + (value === "1" ? "" : "s"));
  }

  function indexAt(svg, event) {
    var box = svg.viewBox.baseVal;
    var rect = svg.getBoundingClientRect();
    var x = (event.clientX - rect.left) * box.width / rect.width;
    var y = (event.clientY - rect.top) * box.height / rect.height;
    x -= Number(svg.dataset.left || 0);
    y -= Number(svg.dataset.top || 0);
    if (x < 0 || y < 0) return -1;
    if (svg.dataset.columns) {
      var column = Math.floor(x / Number(svg.dataset.step));
      return column < Number(svg.dataset.columns) ? column : -1;
    }
    var cell = Number(svg.dataset.cell);
    var row = Math.floor(y / cell);
    if (row >= Number(svg.dataset.rows)) return -1;
    return Math.floor(x / cell) * Number(svg.dataset.rows) + row;
  }

  function show(svg, event) {
    var values = svg.dataset.values.split(",");
    var index = indexAt(svg, event);
    if (index < 0 || index >= values.length) return hide();
    if (!tip) {
      tip = document.createElement("div");
      tip.className = "chart-tip";
      document.body.appendChild(tip);
    }
    tip.textContent = addDays(svg.dataset.first, index) + ": " + label(svg.dataset.tip, values[index]);
    tip.style.left = event.pageX + 12 + "px";
    tip.style.top = event.pageY + 12 + "px";
    tip.hidden = false;
  }

  function hide() {
    if (tip) tip.hidden = true;
  }

  document.querySelectorAll("svg[data-tip]").forEach(function (svg) {
    svg.querySelectorAll("rect > title").forEach(function (title) { title.remove(); });
    svg.addEventListener("pointermove", function (event) { show(svg, event); });
    svg.addEventListener("pointerleave", hide);
  });
})();
