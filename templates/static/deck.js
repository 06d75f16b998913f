/* deck.js: one slide at a time in <main class="deck"> (its <section class="slide"
   id="slide-K"> children); deck.css lays the slide out on its canvas before this runs,
   so this only says which slide is current. Keys: ArrowRight, PageDown, Space (next);
   ArrowLeft, PageUp, Shift+Space (previous); Home, End; F fullscreen; S the presenter
   view in a second window, kept in step with this one over a BroadcastChannel and
   postMessage; O an overview of every slide; ? the keys. The overview, the list of keys
   and the presenter view are static/deck-views.js and deck-views.css, loaded when first
   asked for. A click on the right two-thirds of a slide goes on, on the left third goes
   back; a swipe does the same on touch screens. The URL hash follows the slide
   (#slide-K) so a reload or a shared link opens the same slide. A slide's fragments
   (list items marked "- [+]" in the Markdown, class "step") appear one per → and go
   one per ←; a slide reached by → starts with none shown, one reached by ←, a link or
   a reload with all. "The data behind this figure" opens in a modal <dialog> over the
   slide, its table moved there while it is open. Without this script the deck stays a
   readable stacked page, every fragment shown. */
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
  // stepAt: how many of the current slide's fragments are shown (deck-steps.js, on a
  // deck that has any, shows them); ALL, as a step: every one
  var stepAt = 0;
  var ALL = Infinity;
  var api = {};
  var listeners = [];
  root.classList.add("deck-js");
  var presenting = /(?:^|[?&])presenter(?:[=&]|$)/.test(location.search.slice(1));

  // Clicks and keys on these belong to the element, not to the deck.
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

  // The slide a link names (#slide-K), or the one holding the element it names.
  function indexFromHash() {
    var m = /^#slide-([0-9]+)$/.exec(location.hash);
    if (m && m[1] >= 1 && m[1] <= n) return m[1] - 1;
    var target = document.querySelector(":target");
    var k = target ? slides.indexOf(target.closest("section.slide")) : -1;
    return k < 0 ? 0 : k;
  }

  // ---------------------------------------------------------- two windows in step
  var channel = null;
  var peer = presenting ? window.opener : null;
  try {
    channel = new BroadcastChannel("cit-deck");
  } catch (err) {
    // postMessage to the other window still works (file:// included)
    channel = null;
  }

  // The other window: this one's slide and step, or (hello) a presenter view asking
  function tell(i, step, hello) {
    var msg = { citDeck: location.pathname, slide: i, step: step, hello: hello };
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
    if (!data || data.citDeck !== location.pathname) return;
    if (data.hello) tell(current, stepAt);
    else if (typeof data.slide === "number") show(data.slide, true, data.step);
  }
  if (channel) channel.onmessage = function (e) { heard(e.data); };
  window.addEventListener("message", function (e) {
    if (e.source && (e.source === peer || e.source === window.opener)) heard(e.data);
  });

  // ---------------------------------------------------------- showing a slide
  function stepsOf(i) {
    return api.steps ? api.steps.count(i) : 0;
  }

  // Slide i with its first "step" fragments shown (ALL, or none given: every one).
  function show(i, fromPeer, step) {
    i = Math.max(0, Math.min(n - 1, i));
    step = Math.max(0, Math.min(step === undefined ? ALL : step, stepsOf(i)));
    if (i === current && step === stepAt) return;
    var old = current >= 0 ? slides[current] : null;
    var focusWasInOld = old && old !== slides[i] && old.contains(document.activeElement);
    if (old) old.classList.remove("is-current");
    current = i;
    stepAt = step;
    var slide = slides[i];
    slide.classList.add("is-current");
    if (api.steps) api.steps.show(i, step);
    status.textContent = "Slide " + (i + 1) + " of " + n;
    prevBtn.disabled = i === 0 && !step;
    nextBtn.disabled = i === n - 1 && step === stepsOf(i);
    progress.style.transform = "scaleX(" + (i + 1) / n + ")";
    var hash = "#slide-" + (i + 1);
    if (location.hash !== hash) {
      try {
        history.replaceState(history.state, "", hash);
      } catch (err) {
        // Some file:// contexts refuse replaceState; the slide still changes.
      }
    }
    if (focusWasInOld) slide.focus({ preventScroll: true });
    if (!fromPeer) tell(i, step);
    listeners.forEach(function (fn) { fn(i, step); });
  }

  // One step on (→) or back (←): a fragment of this slide while there is one, else a slide.
  function go(dir) {
    var to = stepAt + dir;
    if (to >= 0 && to <= stepsOf(current)) return show(current, false, to);
    show(current + dir, false, dir > 0 ? 0 : ALL);
  }

  // ---------------------------------------------------------- F, S, O and ?
  function fullscreen() {
    var done = document.fullscreenElement ? document.exitFullscreen() : root.requestFullscreen();
    // refused: the page stays as it is
    if (done && done.catch) done.catch(function () {});
  }

  function presenterView() {
    if (presenting) return;
    var url = location.href.split("#")[0].split("?")[0] + "?presenter#slide-" + (current + 1);
    var w = window.open(url, "cit-presenter", "popup,width=1200,height=760");
    if (w) peer = w;
  }

  // The views' script and sheet, next to this one, loaded once; then(views) runs when
  // they are in.
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

  window.CIT_DECK = api;
  Object.assign(api, {
    slides: slides,
    presenting: presenting,
    current: function () { return current; },
    step: function () { return stepAt; },
    stepsOf: stepsOf,
    show: show,
    onShow: function (fn) { listeners.push(fn); },
    key: function (name) { VIEW_KEYS[name](); }
  });

  var VIEW_KEYS = {
    f: fullscreen,
    s: presenterView,
    o: function () { withViews(function (v) { v.overview(true); }); },
    "?": function () { withViews(function (v) { v.help(); }); }
  };

  prevBtn.addEventListener("click", function () { go(-1); });
  nextBtn.addEventListener("click", function () { go(1); });
  bar.querySelector(".deck-keys").addEventListener("click", VIEW_KEYS["?"]);

  var MOVES = { ArrowRight: 1, PageDown: 1, ArrowLeft: -1, PageUp: -1 };
  function moveKey(e, t) {
    var k = e.key;
    if (MOVES[k]) go(MOVES[k]);
    else if (k === " " || k === "Spacebar") {
      if (t.closest(OWN_SPACE)) return false;
      go(e.shiftKey ? -1 : 1);
    } else if (k === "Home") show(0, false, 0);
    else if (k === "End") show(n - 1, false, ALL);
    else return false;
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

  // "The data behind this figure" opens in a dialog over the slide (deck-views.js), not
  // in the slide, which it would make scroll.
  deck.addEventListener("click", function (e) {
    if (e.defaultPrevented || e.button !== 0) return;
    if (views && views.click(e)) return;
    var summary = e.target.closest("details.chart-data > summary");
    if (summary) {
      e.preventDefault();
      return withViews(function (v) { v.data(summary.parentNode); });
    }
    if (e.target.closest(OWN_CLICKS)) return;
    var sel = window.getSelection ? window.getSelection() : null;
    // the reader is selecting text
    if (sel && !sel.isCollapsed && String(sel).trim()) return;
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
    var i = indexFromHash();
    if (i !== current) show(i);
  });

  show(indexFromHash(), true);

  // a presenter view opened on a slide part-way through its fragments: the audience's
  // window answers its hello with its slide and step
  if (presenting) withViews(function (v) { v.presenter(); tell(current, stepAt, true); });
})();
