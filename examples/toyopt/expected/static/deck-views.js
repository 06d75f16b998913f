(function () {
"use strict";
var api = window.CIT_DECK;
if (!api) return;
var slides = api.slides;
var n = slides.length;
var root = document.documentElement;
var deck = document.querySelector("main.deck");
function make(tag, className, text) {
var node = document.createElement(tag);
if (className) node.className = className;
if (text) node.textContent = text;
return node;
}
var KEYS = [
[["\u2192", "Space", "Page Down"], "next slide"],
[["\u2190", "Shift+Space", "Page Up"], "previous slide"],
[["Home", "End"], "first, last slide"],
[["F"], "fullscreen, on and off"],
[["S"], "presenter view in a second window: this slide, the next, the speaker notes " +
"and a timer, kept in step with this one"],
[["O"], "overview of every slide; arrows and Enter pick one, Esc goes back"],
[["?"], "this list"],
[["Esc"], "close this list or the overview"]
];
var VIEWS = [["f", "Fullscreen"], ["s", "Presenter view"], ["o", "Overview"]];
var dialog = null;
function buildHelp() {
dialog = make("dialog", "deck-help");
dialog.setAttribute("aria-labelledby", "deck-help-title");
var title = make("h2", "", "Keys");
title.id = "deck-help-title";
var list = make("dl", "deck-keylist");
KEYS.forEach(function (row) {
var dt = make("dt");
row[0].forEach(function (k, i) {
if (i) dt.appendChild(document.createTextNode(" "));
dt.appendChild(make("kbd", "", k));
});
list.appendChild(dt);
list.appendChild(make("dd", "", row[1]));
});
var actions = make("p", "deck-help-actions");
VIEWS.concat([["", "Close"]]).forEach(function (v) {
var b = make("button", "", v[1]);
b.type = "button";
b.addEventListener("click", function () {
dialog.close();
if (v[0]) api.key(v[0]);
});
actions.appendChild(b);
});
dialog.appendChild(title);
dialog.appendChild(list);
dialog.appendChild(actions);
document.body.appendChild(dialog);
}
function help() {
if (!dialog) buildHelp();
if (!dialog.open) dialog.showModal();
}
function overviewOpen() {
return root.classList.contains("deck-overview");
}
function overview(on) {
root.classList.toggle("deck-overview", on);
slides.forEach(function (s) { s.tabIndex = on ? 0 : -1; });
slides[api.current()].focus({ preventScroll: !on });
}
function pick(i) {
overview(false);
api.show(i);
}
function key(e) {
if (!overviewOpen()) return false;
var at = slides.indexOf(document.activeElement);
if (at < 0) at = api.current();
var cols = parseInt(getComputedStyle(deck).getPropertyValue("--cols"), 10) || 1;
var step = { ArrowRight: 1, ArrowLeft: -1, ArrowDown: cols, ArrowUp: -cols }[e.key];
if (step) {
slides[Math.max(0, Math.min(n - 1, at + step))].focus();
} else if (e.key === "Enter" || e.key === " ") {
pick(at);
} else if (e.key === "Escape" || e.key === "o" || e.key === "O") {
overview(false);
}
return true; // in the overview, no other key moves the deck
}
function click(e) {
if (!overviewOpen()) return false;
var picked = e.target.closest && e.target.closest("section.slide");
if (picked) pick(slides.indexOf(picked));
return true;
}
function withoutIds(node) {
node.removeAttribute("id");
Array.prototype.forEach.call(node.querySelectorAll("[id]"), function (e) {
e.removeAttribute("id");
});
return node;
}
function presenter() {
var started = Date.now();
root.classList.add("deck-presenter");
var panel = make("aside", "presenter-panel");
panel.setAttribute("aria-label", "Presenter view");
var nextBox = make("div", "deck presenter-next");
nextBox.setAttribute("aria-hidden", "true");
nextBox.inert = true;
var notesBox = make("section", "presenter-notes");
notesBox.setAttribute("aria-labelledby", "presenter-notes-title");
var notesTitle = make("h2", "presenter-label", "Speaker notes");
notesTitle.id = "presenter-notes-title";
var notesText = make("div", "presenter-notes-text");
notesBox.appendChild(notesTitle);
notesBox.appendChild(notesText);
var clock = make("p", "presenter-clock");
var timer = make("span", "presenter-timer");
timer.setAttribute("role", "timer");
var restart = make("button", "presenter-restart", "Restart timer");
restart.type = "button";
clock.appendChild(timer);
clock.appendChild(restart);
panel.appendChild(make("h2", "presenter-label", "Next"));
panel.appendChild(nextBox);
panel.appendChild(notesBox);
panel.appendChild(clock);
deck.after(panel);
function update(i) {
nextBox.textContent = "";
if (i + 1 < n) {
var copy = withoutIds(slides[i + 1].cloneNode(true));
copy.classList.add("is-current");
copy.removeAttribute("aria-labelledby");
nextBox.appendChild(copy);
} else {
nextBox.appendChild(make("p", "presenter-end", "End of the deck"));
}
notesText.textContent = "";
var notes = slides[i].querySelector(".slide-notes");
Array.prototype.forEach.call(notes ? notes.children : [], function (c) {
if (c.tagName !== "SUMMARY") notesText.appendChild(withoutIds(c.cloneNode(true)));
});
if (!notes) notesText.appendChild(make("p", "presenter-none", "No notes for this slide."));
}
function tick() {
var s = Math.floor((Date.now() - started) / 1000);
var m = Math.floor(s / 60);
s = s % 60;
timer.textContent = m + ":" + (s < 10 ? "0" : "") + s;
}
restart.addEventListener("click", function () {
started = Date.now();
tick();
});
api.onShow(update);
update(api.current());
tick();
setInterval(tick, 1000);
}
api.views = { help: help, overview: overview, key: key, click: click, presenter: presenter };
})();
