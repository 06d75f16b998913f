(function () {
"use strict";
var CARD_ID = "cit-prov-card";
var TERM = "a.term[data-term]";
var NUM = "data.num, .fig-mark[data-id], data.claim-mark";
var me = document.currentScript || document.querySelector('script[src$="static/site.js"]');
var cardsSrc = me && me.src ? me.src.replace(/site\.js([?#].*)?$/, "cards.js") : "";
var ui = null;
var uiState = "idle";   // idle | loading | ready | failed
var intent = null;      // what the reader asked for before cards.js arrived
function closestFrom(target, selector) {
return target && target.closest ? target.closest(selector) : null;
}
function loadCards() {
if (uiState !== "idle" || !cardsSrc) return;
uiState = "loading";
var pending = 2;
function arrived() {
pending -= 1;
if (pending > 0) return;
ui = window.CIT_CARDS || null;
uiState = ui ? "ready" : "failed";
if (!ui) return;
ui.load();
var then = intent;
intent = null;
if (then) then();
}
var sheet = document.createElement("link");
sheet.rel = "stylesheet";
sheet.href = cardsSrc.replace(/cards\.js$/, "cards.css");
sheet.onload = sheet.onerror = arrived;     // an unstyled card beats none
document.head.appendChild(sheet);
var script = document.createElement("script");
script.src = cardsSrc;
script.async = true;
script.onload = arrived;
script.onerror = function () { uiState = "failed"; };
document.head.appendChild(script);
}
function want(then) {
intent = then;
loadCards();
}
function focusVisible(node) {
try {
return node.matches(":focus-visible");
} catch (err) {
return false;
}
}
var early = {
click: function (e) {
var num = closestFrom(e.target, NUM);
intent = null;
if (num) want(function () { ui.openCard(num, false); });
},
keydown: function (e) {
if (e.key === "Escape" || e.key === "Esc") {
intent = null;
return;
}
var num = closestFrom(e.target, NUM);
if (num && (e.key === "Enter" || e.key === " " || e.key === "Spacebar") &&
!e.altKey && !e.ctrlKey && !e.metaKey) {
e.preventDefault();
want(function () { ui.openCard(num, true); });
}
},
focusin: function (e) {
loadCards();
var num = closestFrom(e.target, NUM);
if (num && focusVisible(num)) {
want(function () { if (document.activeElement === num) ui.openCard(num, false); });
}
var link = closestFrom(e.target, TERM);
if (link) want(function () { if (document.activeElement === link) ui.showTip(link); });
},
mouseover: function (e) {
if (closestFrom(e.target, NUM)) loadCards();
var link = closestFrom(e.target, TERM);
if (link) want(function () { if (link.matches(":hover")) ui.showTip(link); });
},
touchstart: function () { loadCards(); }
};
function listen(target, type, options) {
target.addEventListener(type, function (e) {
if (ui) ui.handle(type, e);
else if (early[type]) early[type](e);
}, options);
}
["click", "keydown", "focusin", "focusout", "mouseover", "mouseout"].forEach(function (type) {
listen(document, type);
});
listen(document, "touchstart", { passive: true });
listen(window, "resize");
function setUpNumbers(root) {
var nums = (root || document).querySelectorAll(NUM);
for (var i = 0; i < nums.length; i++) {
var num = nums[i];
if (!num.hasAttribute("tabindex")) num.tabIndex = 0;
num.setAttribute("role", "button");
if (num.hasAttribute("data-label")) num.setAttribute("aria-label", num.getAttribute("data-label"));
num.setAttribute("aria-haspopup", "dialog");
num.setAttribute("aria-expanded", "false");
num.setAttribute("aria-controls", CARD_ID);
}
}
function setUpTerms() {
if (!document.body.getAttribute("data-prov")) return;
var tips = {};
var links = document.querySelectorAll(TERM);
for (var i = 0; i < links.length; i++) {
var key = links[i].getAttribute("data-term");
if (!Object.prototype.hasOwnProperty.call(tips, key)) {
var tip = document.createElement("div");
tip.className = "term-tip";
tip.id = "cit-term-tip-" + key.replace(/[^A-Za-z0-9_-]/g, "_");
tip.setAttribute("role", "tooltip");
tip.hidden = true;
document.body.appendChild(tip);
tips[key] = tip;
}
links[i].setAttribute("aria-describedby", tips[key].id);
}
}
function setUpOutline() {
var box = document.querySelector(".page-outline details");
var wide = window.matchMedia ? window.matchMedia("(min-width: 100rem)") : null;
if (!box || !wide) return;
var follow = function () { box.open = wide.matches; };
follow();
if (wide.addEventListener) wide.addEventListener("change", follow);
}
var searchSrc = me && me.src ? me.src.replace(/site\.js([?#].*)?$/, "search.js") : "";
var searchState = "idle";   // idle | loading | ready | failed
function openSearch() {
if (searchState === "ready") return window.CIT_SEARCH.open();
if (searchState !== "idle" || !searchSrc) return;
searchState = "loading";
var script = document.createElement("script");
script.src = searchSrc;
script.async = true;
script.onload = function () {
searchState = window.CIT_SEARCH ? "ready" : "failed";
if (window.CIT_SEARCH) window.CIT_SEARCH.open();
};
script.onerror = function () { searchState = "failed"; };
document.head.appendChild(script);
}
document.addEventListener("click", function (e) {
if (closestFrom(e.target, "button.search-open")) openSearch();
});
document.documentElement.classList.add("has-js");
window.CIT_SITE = { prepare: setUpNumbers };
function init() {
setUpNumbers();
setUpTerms();
setUpOutline();
}
if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
else init();
})();
