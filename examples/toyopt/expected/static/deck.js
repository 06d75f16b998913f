(function () {
"use strict";
var deck = document.querySelector("main.deck");
if (!deck) return;
var slides = Array.prototype.slice.call(deck.querySelectorAll("section.slide"));
var n = slides.length;
if (!n) return;
var root = document.documentElement;
var here = document.currentScript ? document.currentScript.src : "";
var current = -1;
var listeners = [];
root.classList.add("deck-js");
var presenting = /(?:^|[?&])presenter(?:[=&]|$)/.test(window.location.search.slice(1));
var OWN_CLICKS = "a, button, input, select, textarea, label, summary, details, " +
"data.num, [role='button'], [role='dialog'], .prov-card, .term-tip, .chart, " +
".js-plotly-plot, .chain-controls";
var OWN_KEYS = "input, select, textarea, [contenteditable=''], [contenteditable='true'], " +
"[role='dialog'], dialog, .prov-card";
var OWN_SPACE = "a, button, summary, data.num, [role='button'], [role='radio'], " +
"[role='checkbox']";
var bar = document.querySelector(".deck-bar");
var prevBtn = bar.querySelector(".deck-prev");
var nextBtn = bar.querySelector(".deck-next");
var status = bar.querySelector(".deck-status");
var progress = bar.querySelector(".deck-progress");
slides.forEach(function (slide) {
if (!slide.hasAttribute("tabindex")) slide.tabIndex = -1;
});
function indexFromHash() {
var hash = window.location.hash;
var m = /^#slide-([0-9]+)$/.exec(hash);
if (m) {
var k = parseInt(m[1], 10);
if (k >= 1 && k <= n) return k - 1;
}
if (hash.length > 1) {
var target = null;
try {
target = document.getElementById(decodeURIComponent(hash.slice(1)));
} catch (err) {
target = null;
}
var owner = target && target.closest ? target.closest("section.slide") : null;
if (owner && slides.indexOf(owner) >= 0) return slides.indexOf(owner);
}
return 0;
}
var channel = null;
var peer = presenting ? window.opener : null;
try {
channel = new BroadcastChannel("cit-deck");
} catch (err) {
channel = null; // postMessage to the other window still works (file:// included)
}
function tell(i) {
var msg = { citDeck: window.location.pathname, slide: i };
if (channel) channel.postMessage(msg);
if (peer && !peer.closed) {
try {
peer.postMessage(msg, "*");
} catch (err) {
peer = null;
}
}
}
function heard(data) {
if (data && data.citDeck === window.location.pathname && typeof data.slide === "number") {
show(data.slide, true);
}
}
if (channel) channel.onmessage = function (e) { heard(e.data); };
window.addEventListener("message", function (e) {
if (e.source && (e.source === peer || e.source === window.opener)) heard(e.data);
});
function show(i, fromPeer) {
i = Math.max(0, Math.min(n - 1, i));
if (i === current) return;
var old = current >= 0 ? slides[current] : null;
var focusWasInOld = old && old.contains(document.activeElement);
if (old) old.classList.remove("is-current");
current = i;
var slide = slides[i];
slide.classList.add("is-current");
status.textContent = "Slide " + (i + 1) + " of " + n;
prevBtn.disabled = i === 0;
nextBtn.disabled = i === n - 1;
progress.style.transform = "scaleX(" + (i + 1) / n + ")";
var hash = "#slide-" + (i + 1);
if (window.location.hash !== hash) {
try {
history.replaceState(history.state, "", hash);
} catch (err) {
}
}
if (focusWasInOld) slide.focus({ preventScroll: true });
if (!fromPeer) tell(i);
listeners.forEach(function (fn) { fn(i); });
}
function go(step) {
show(current + step);
}
function fullscreen() {
var done = document.fullscreenElement ? document.exitFullscreen() : root.requestFullscreen();
if (done && done.catch) done.catch(function () { /* refused: the page stays as it is */ });
}
function presenterView() {
if (presenting) return;
var url = window.location.href.split("#")[0].split("?")[0] + "?presenter#slide-" + (current + 1);
var w = window.open(url, "cit-presenter", "popup,width=1200,height=760");
if (w) peer = w;
}
var views = null;
var waiting = null;
function withViews(then) {
if (views) return then(views);
if (waiting) return waiting.push(then);
waiting = [then];
var base = here.replace(/deck\.js(\?.*)?$/, "");
var sheet = document.createElement("link");
sheet.rel = "stylesheet";
sheet.href = base + "deck-views.css";
document.head.appendChild(sheet);
var script = document.createElement("script");
script.src = base + "deck-views.js";
script.onload = function () {
views = window.CIT_DECK.views;
waiting.forEach(function (fn) { fn(views); });
};
document.body.appendChild(script);
}
window.CIT_DECK = {
slides: slides,
presenting: presenting,
current: function () { return current; },
show: show,
onShow: function (fn) { listeners.push(fn); },
key: function (name) { VIEW_KEYS[name](); }
};
var VIEW_KEYS = {
f: fullscreen,
s: presenterView,
o: function () { withViews(function (v) { v.overview(true); }); },
"?": function () { withViews(function (v) { v.help(); }); }
};
prevBtn.addEventListener("click", function () { go(-1); });
nextBtn.addEventListener("click", function () { go(1); });
bar.querySelector(".deck-keys").addEventListener("click", VIEW_KEYS["?"]);
function moveKey(e, t) {
switch (e.key) {
case "ArrowRight":
case "PageDown":
go(1);
break;
case "ArrowLeft":
case "PageUp":
go(-1);
break;
case " ":
case "Spacebar":
if (t.closest(OWN_SPACE)) return false;
go(e.shiftKey ? -1 : 1);
break;
case "Home":
show(0);
break;
case "End":
show(n - 1);
break;
default:
return false;
}
return true;
}
document.addEventListener("keydown", function (e) {
if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return;
var t = e.target && e.target.closest ? e.target : document.body;
if (t.closest(OWN_KEYS)) return;
if (views && views.key(e)) return e.preventDefault();
var view = VIEW_KEYS[e.key.length === 1 ? e.key.toLowerCase() : ""];
if (view) {
view();
} else if (!moveKey(e, t)) {
return;
}
e.preventDefault();
});
deck.addEventListener("click", function (e) {
if (e.defaultPrevented || e.button !== 0) return;
if (views && views.click(e)) return;
if (e.target.closest && e.target.closest(OWN_CLICKS)) return;
var sel = window.getSelection ? window.getSelection() : null;
if (sel && !sel.isCollapsed && String(sel).trim()) return; // the reader is selecting text
var box = deck.getBoundingClientRect();
go(e.clientX < box.left + box.width / 3 ? -1 : 1);
});
var touch = null;
deck.addEventListener("touchstart", function (e) {
if (e.touches.length !== 1) {
touch = null;
return;
}
touch = { x: e.touches[0].clientX, y: e.touches[0].clientY, t: Date.now() };
}, { passive: true });
deck.addEventListener("touchend", function (e) {
if (!touch || !e.changedTouches.length || root.classList.contains("deck-overview")) return;
var dx = e.changedTouches[0].clientX - touch.x;
var dy = e.changedTouches[0].clientY - touch.y;
var quick = Date.now() - touch.t < 800;
touch = null;
if (quick && Math.abs(dx) > 50 && Math.abs(dx) > 1.5 * Math.abs(dy)) go(dx < 0 ? 1 : -1);
}, { passive: true });
window.addEventListener("hashchange", function () {
show(indexFromHash());
});
show(indexFromHash(), true);
if (presenting) withViews(function (v) { v.presenter(); });
})();
