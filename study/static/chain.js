/* chain.js: the hub's chain animation. Shows the E / E′ toggle that study/blocks/chain.py renders
   hidden, fades the path that is not selected (elements carry data-path="E Eprime"; the
   other path's get the class is-off), and moves packets along the selected path's
   edges from the sending GPU to the weight update. With prefers-reduced-motion nothing
   moves: the packets are not drawn and the arrows carry the same information. Off
   screen (an IntersectionObserver says so) no frame is asked for, so the figure costs
   nothing there; it goes on from where it stopped when it comes back into view. */
(function () {
  "use strict";

  var SVG_NS = "http://www.w3.org/2000/svg";
  var SPEED = 110;          // user units per second along the route
  var PACKETS = 5;          // on the main route, evenly spaced
  var STEP = 2;             // user units between the points kept of each edge
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

  /* The main route is the chain of flow edges from the one block of the path that no
     flow edge enters; feedback edges each get a packet of their own. */
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
    this.route = route.map(sampled);
    this.routeLen = this.route.reduce(function (s, r) { return s + r.len; }, 0);
    this.loops = edges.filter(function (e) { return e.getAttribute("data-kind") === "feedback"; })
      .map(sampled);
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

  // An edge's points, read from the SVG once when the route is built: a frame then only
  // writes attributes. Reading getPointAtLength between the writes made the browser lay
  // the page out again for every packet of every frame.
  function sampled(edge) {
    var len = edge.getTotalLength();
    var n = Math.max(1, Math.ceil(len / STEP));
    var pts = [];
    for (var i = 0; i <= n; i++) {
      var p = edge.getPointAtLength((len * i) / n);
      pts.push(p.x, p.y);
    }
    return { el: edge, len: len, n: n, pts: pts };
  }

  function at(seg, s) {
    var f = seg.len ? (Math.max(0, Math.min(seg.len, s)) / seg.len) * seg.n : 0;
    var i = Math.min(seg.n - 1, Math.floor(f));
    var w = f - i;
    var x0 = seg.pts[2 * i], y0 = seg.pts[2 * i + 1];
    return { x: x0 + (seg.pts[2 * i + 2] - x0) * w, y: y0 + (seg.pts[2 * i + 3] - y0) * w };
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
