(function () {
"use strict";
var SVG_NS = "http://www.w3.org/2000/svg";
var SPEED = 110;          // user units per second along the route
var PACKETS = 5;          // on the main route, evenly spaced
var reduce = window.matchMedia ? window.matchMedia("(prefers-reduced-motion: reduce)") : null;
function tokens(node) {
return (node.getAttribute("data-path") || "").split(/\s+/).filter(Boolean);
}
function Chain(fig) {
this.fig = fig;
this.svg = fig.querySelector("svg.chain-svg");
this.layer = fig.querySelector(".chain-packets");
this.controls = fig.querySelector(".chain-controls");
this.pauseBtn = fig.querySelector(".chain-pause");
this.radios = Array.prototype.slice.call(fig.querySelectorAll("input[name='chain-path']"));
this.route = [];
this.loops = [];
this.packets = [];
this.paused = false;
this.visible = !("IntersectionObserver" in window);   // until the observer says
this.frame = 0;
this.t0 = null;
this.tick = this.tick.bind(this);
}
Chain.prototype.init = function () {
var self = this;
if (!this.svg || !this.layer) return;
if (this.controls) this.controls.hidden = false;
this.radios.forEach(function (radio) {
radio.addEventListener("change", function () {
if (radio.checked) self.select(radio.value);
});
});
if (this.pauseBtn) {
this.pauseBtn.addEventListener("click", function () {
self.paused = !self.paused;
self.pauseBtn.setAttribute("aria-pressed", self.paused ? "true" : "false");
self.pauseBtn.textContent = self.paused ? "Play the packets" : "Pause the packets";
self.update();
});
}
if (reduce) {
var onChange = function () { self.update(); };
if (reduce.addEventListener) reduce.addEventListener("change", onChange);
else if (reduce.addListener) reduce.addListener(onChange);
}
var checked = this.radios.filter(function (r) { return r.checked; })[0];
this.select(checked ? checked.value : this.fig.getAttribute("data-active") || "E");
if ("IntersectionObserver" in window) {
new IntersectionObserver(function (entries) {
self.visible = entries[entries.length - 1].isIntersecting;
self.update();
}).observe(this.svg);
}
};
Chain.prototype.select = function (path) {
this.fig.setAttribute("data-active", path);
var parts = this.fig.querySelectorAll("[data-path]");
for (var i = 0; i < parts.length; i++) {
parts[i].classList.toggle("is-off", tokens(parts[i]).indexOf(path) < 0);
}
this.buildRoute(path);
this.update();
};
Chain.prototype.buildRoute = function (path) {
var edges = Array.prototype.slice.call(this.svg.querySelectorAll("path.chain-edge"))
.filter(function (e) { return tokens(e).indexOf(path) >= 0; });
var flow = edges.filter(function (e) { return e.getAttribute("data-kind") === "flow"; });
var out = {};
var entered = {};
flow.forEach(function (e) {
out[e.getAttribute("data-from")] = e;
entered[e.getAttribute("data-to")] = true;
});
var start = null;
flow.forEach(function (e) {
var from = e.getAttribute("data-from");
if (!entered[from] && start === null) start = from;
});
var route = [];
var seen = {};
var cur = start;
while (cur !== null && out[cur] && !seen[cur]) {
seen[cur] = true;
route.push(out[cur]);
cur = out[cur].getAttribute("data-to");
}
this.route = route.map(function (e) {
return { el: e, len: e.getTotalLength() };
});
this.routeLen = this.route.reduce(function (s, r) { return s + r.len; }, 0);
this.loops = edges.filter(function (e) { return e.getAttribute("data-kind") === "feedback"; })
.map(function (e) { return { el: e, len: e.getTotalLength() }; });
this.fig.setAttribute("data-route", route.map(function (e) { return e.id; }).join(" "));
this.makePackets();
};
Chain.prototype.makePackets = function () {
while (this.layer.firstChild) this.layer.removeChild(this.layer.firstChild);
this.packets = [];
var count = PACKETS + this.loops.length;
for (var i = 0; i < count; i++) {
var c = document.createElementNS(SVG_NS, "circle");
c.setAttribute("class", "chain-packet");
c.setAttribute("r", "5.5");
this.layer.appendChild(c);
this.packets.push(c);
}
};
Chain.prototype.moving = function () {
return !this.paused && this.visible && !(reduce && reduce.matches) && this.routeLen > 0;
};
Chain.prototype.update = function () {
var move = this.moving();
this.fig.setAttribute("data-animating", move ? "true" : "false");
if (this.pauseBtn) this.pauseBtn.hidden = !!(reduce && reduce.matches);
this.layer.style.display = reduce && reduce.matches ? "none" : "";
this.fig.setAttribute("data-on-screen", this.visible ? "true" : "false");
if (move && !this.frame) {
this.t0 = null;
this.frame = window.requestAnimationFrame(this.tick);
} else if (!move && this.frame) {
window.cancelAnimationFrame(this.frame);
this.frame = 0;
}
if (!move) this.draw(this.lastT || 0);
};
Chain.prototype.tick = function (now) {
this.frame = 0;
if (!this.moving()) return;
if (this.t0 === null) this.t0 = now - (this.lastT || 0) * 1000;
this.lastT = (now - this.t0) / 1000;
this.draw(this.lastT);
this.frame = window.requestAnimationFrame(this.tick);
};
function at(seg, s) {
return seg.el.getPointAtLength(Math.max(0, Math.min(seg.len, s)));
}
Chain.prototype.draw = function (t) {
var dist = t * SPEED;
var total = this.routeLen;
var i;
for (i = 0; i < PACKETS && i < this.packets.length; i++) {
if (!total) break;
var s = (dist + (i * total) / PACKETS) % total;
var k = 0;
while (k < this.route.length - 1 && s > this.route[k].len) {
s -= this.route[k].len;
k++;
}
var p = at(this.route[k], s);
this.packets[i].setAttribute("cx", p.x.toFixed(1));
this.packets[i].setAttribute("cy", p.y.toFixed(1));
}
for (var j = 0; j < this.loops.length; j++) {
var loop = this.loops[j];
var q = at(loop, loop.len ? dist % loop.len : 0);
var c = this.packets[PACKETS + j];
c.setAttribute("cx", q.x.toFixed(1));
c.setAttribute("cy", q.y.toFixed(1));
c.setAttribute("class", "chain-packet chain-packet-feedback");
}
};
function init() {
var figs = document.querySelectorAll("figure.chain");
for (var i = 0; i < figs.length; i++) new Chain(figs[i]).init();
}
if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
else init();
})();
