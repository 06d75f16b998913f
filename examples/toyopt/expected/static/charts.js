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
function number(text) {
var t = text.trim();
return t === "n/a" ? null : Number(t.replace(/,/g, ""));
}
function tableSeries(figure) {
var out = {};
var tables = figure ? figure.querySelectorAll("table[data-fx]") : [];
Array.prototype.forEach.call(tables, function (table) {
var ids = Array.prototype.map.call(table.querySelectorAll("thead th[data-series]"),
function (th) { return th.getAttribute("data-series"); });
ids.forEach(function (id) { out[id] = { x: [], y: [], lo: [], hi: [] }; });
var rows = table.tBodies.length ? table.tBodies[0].rows : [];
Array.prototype.forEach.call(rows, function (tr) {
var x = number(tr.cells[0].textContent);
ids.forEach(function (id, k) {
var cell = tr.cells[k + 1] ? tr.cells[k + 1].textContent.trim() : "n/a";
var m = /^(\S+)(?: \((\S+) to (\S+)\))?$/.exec(cell) || [cell, "n/a"];
var s = out[id];
s.x.push(x);
s.y.push(number(m[1]));
s.lo.push(number(m[2] || m[1]));
s.hi.push(number(m[3] || m[1]));
});
});
});
return out;
}
function withPoints(trace, series) {
var s = series[trace.legendgroup];
if (!s) { return trace; }
if (trace.meta === "band") {
var x = [], hi = [], lo = [];
s.x.forEach(function (v, i) {
if (s.lo[i] !== null && s.hi[i] !== null) { x.push(v); hi.push(s.hi[i]); lo.push(s.lo[i]); }
});
trace.x = x.concat(x.slice().reverse());
trace.y = hi.concat(lo.reverse());
delete trace.meta;
} else {
trace.x = s.x;
trace.y = s.y;
}
return trace;
}
var drawn = [];
var plotly = null;   // the promise of the Plotly script, once asked for
function loadPlotly(src) {
if (window.Plotly) { return Promise.resolve(window.Plotly); }
if (!plotly) {
plotly = new Promise(function (resolve, reject) {
var s = document.createElement("script");
s.src = src;
s.onload = function () { resolve(window.Plotly); };
s.onerror = function () {
plotly = null;
reject(new Error("could not load " + src));
};
document.head.appendChild(s);
});
}
return plotly;
}
function draw(div, Plotly) {
var script = document.getElementById(div.getAttribute("data-figure-id") + "-json");
if (!script) { return; }
var fig = JSON.parse(script.textContent);
var series = tableSeries(div.closest("figure"));
var reduce = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
var layout = themed(fig.layout || {});
if (reduce) { layout.transition = { duration: 0 }; }
var box = div.getBoundingClientRect();
div.style.height = box.height + "px";
layout.height = box.height;
var hadFocus = div.contains(document.activeElement);
var preview = div.querySelector(".chart-preview");
if (preview) { preview.parentNode.removeChild(preview); }
Plotly.newPlot(div, (fig.data || []).map(function (t) { return withPoints(t, series); }), layout, {
responsive: true,
displaylogo: false,
displayModeBar: false,
scrollZoom: false
});
div.classList.add("chart-drawn");
if (hadFocus) { div.focus({ preventScroll: true }); }
drawn.push(div);
}
function reach(div) {
if (div.getAttribute("data-state")) { return; }
div.setAttribute("data-state", "loading");
loadPlotly(div.getAttribute("data-plotly-src")).then(function (Plotly) {
draw(div, Plotly);
div.setAttribute("data-state", "drawn");
}, function (err) {
div.removeAttribute("data-state");   // the preview stays; a later reach tries again
if (window.console) { window.console.warn(String(err)); }
});
}
function watch(div) {
var go = function () { reach(div); };
div.addEventListener("pointerenter", go);
div.addEventListener("focusin", go);
div.addEventListener("touchstart", go, { passive: true });
div.addEventListener("click", go);
}
Array.prototype.forEach.call(document.querySelectorAll("div.chart[data-figure-id][data-plotly-src]"), watch);
function retheme() {
var c = themeColours();
drawn.forEach(function (div) {
window.Plotly.relayout(div, {
"font.color": c.text, "xaxis.linecolor": c.text, "yaxis.linecolor": c.text
});
});
}
if (window.matchMedia) {
var mq = window.matchMedia("(prefers-color-scheme: dark)");
if (mq.addEventListener) { mq.addEventListener("change", retheme); }
}
})();
