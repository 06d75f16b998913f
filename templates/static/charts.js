/* Draws every chart on the page with the bundled Plotly (static/plotly.min.js).
   Each <div class="chart" data-figure-id="ID"> has its figure, built at build time from
   the registry's series, in <script type="application/json" id="ID-json">. Without
   JavaScript the data table in the chart's <details> stays the way to read it. */
(function () {
  "use strict";

  function themeColours() {
    var style = window.getComputedStyle(document.body);
    return { text: style.color || "#222", grid: "rgba(128,128,128,0.25)" };
  }

  function themed(layout) {
    var c = themeColours();
    layout.font = Object.assign({}, layout.font, { color: c.text });
    ["xaxis", "yaxis"].forEach(function (k) {
      layout[k] = Object.assign({}, layout[k], { gridcolor: c.grid, linecolor: c.text });
    });
    return layout;
  }

  /* A seed band arrives as its upper edge (y) with the lower edge in customdata
     (cit/charts.py); Plotly's fill "toself" wants the closed outline. */
  function outline(trace) {
    if (trace.meta !== "band" || !Array.isArray(trace.customdata)) { return trace; }
    var x = trace.x.slice(), lo = trace.customdata.slice();
    trace.x = x.concat(x.slice().reverse());
    trace.y = trace.y.concat(lo.reverse());
    delete trace.customdata;
    delete trace.meta;
    return trace;
  }

  var drawn = [];

  function drawAll() {
    if (!window.Plotly) { return; }
    var divs = document.querySelectorAll("div.chart[data-figure-id]");
    Array.prototype.forEach.call(divs, function (div) {
      var script = document.getElementById(div.getAttribute("data-figure-id") + "-json");
      if (!script) { return; }
      var fig = JSON.parse(script.textContent);
      var reduce = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
      var layout = themed(fig.layout || {});
      if (reduce) { layout.transition = { duration: 0 }; }
      window.Plotly.newPlot(div, (fig.data || []).map(outline), layout, {
        responsive: true,
        displaylogo: false,
        scrollZoom: false
      });
      div.classList.add("chart-drawn");
      drawn.push(div);
    });
  }

  function retheme() {
    var c = themeColours();
    drawn.forEach(function (div) {
      window.Plotly.relayout(div, {
        "font.color": c.text, "xaxis.linecolor": c.text, "yaxis.linecolor": c.text
      });
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", drawAll);
  } else {
    drawAll();
  }
  if (window.matchMedia) {
    var mq = window.matchMedia("(prefers-color-scheme: dark)");
    if (mq.addEventListener) { mq.addEventListener("change", retheme); }
  }
})();
