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
   (list items marked `- [+]` in the Markdown, class "step") appear one per → and go
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
  var stepAt = 0;      // how many of the current slide's fragments are shown
  var ALL = Infinity;  // as a step: every fragment of the slide
  var listeners = [];
  root.classList.add("deck-js");
  var presenting = /(?:^|[?&])presenter(?:[=&]|$)/.test(window.location.search.slice(1));

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

  function indexFromHash() {
    var hash = window.location.hash;
    var m = /^#slide-([0-9]+)$/.exec(hash);
    if (m) {
      var k = parseInt(m[1], 10);
      if (k >= 1 && k <= n) return k - 1;
    }
    // A link to something inside a slide opens that slide.
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

  // ---------------------------------------------------------- two windows in step
  var channel = null;
  var peer = presenting ? window.opener : null;
  try {
    channel = new BroadcastChannel("cit-deck");
  } catch (err) {
    channel = null; // postMessage to the other window still works (file:// included)
  }

  function tell(i, step) {
    var msg = { citDeck: window.location.pathname, slide: i, step: step };
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
      show(data.slide, true, typeof data.step === "number" ? data.step : ALL);
    }
  }
  if (channel) channel.onmessage = function (e) { heard(e.data); };
  window.addEventListener("message", function (e) {
    if (e.source && (e.source === peer || e.source === window.opener)) heard(e.data);
  });

  // ---------------------------------------------------------- showing a slide
  function stepsOf(i) {
    return slides[i].querySelectorAll(".step");
  }

  function showSteps(k) {
    var steps = stepsOf(current);
    stepAt = Math.max(0, Math.min(steps.length, k));
    Array.prototype.forEach.call(steps, function (li, j) {
      li.classList.toggle("is-shown", j < stepAt);
    });
  }

  // Slide i with its first `step` fragments shown (ALL: every one).
  function show(i, fromPeer, step) {
    i = Math.max(0, Math.min(n - 1, i));
    step = step === undefined ? ALL : step;
    if (i === current && Math.min(step, stepsOf(i).length) === stepAt) return;
    var old = current >= 0 ? slides[current] : null;
    var focusWasInOld = old && old !== slides[i] && old.contains(document.activeElement);
    if (old) old.classList.remove("is-current");
    current = i;
    var slide = slides[i];
    slide.classList.add("is-current");
    showSteps(step);
    status.textContent = "Slide " + (i + 1) + " of " + n;
    prevBtn.disabled = i === 0 && stepAt === 0;
    nextBtn.disabled = i === n - 1 && stepAt === stepsOf(i).length;
    progress.style.transform = "scaleX(" + (i + 1) / n + ")";
    var hash = "#slide-" + (i + 1);
    if (window.location.hash !== hash) {
      try {
        history.replaceState(history.state, "", hash);
      } catch (err) {
        // Some file:// contexts refuse replaceState; the slide still changes.
      }
    }
    if (focusWasInOld) slide.focus({ preventScroll: true });
    if (!fromPeer) tell(i, stepAt);
    listeners.forEach(function (fn) { fn(i, stepAt); });
  }

  // One step on (→) or back (←): a fragment of this slide while there is one, else a slide.
  function go(dir) {
    var steps = stepsOf(current).length;
    if (dir > 0 && stepAt < steps) return show(current, false, stepAt + 1);
    if (dir < 0 && stepAt > 0 && steps) return show(current, false, stepAt - 1);
    show(current + dir, false, dir > 0 ? 0 : ALL);
  }

  // ---------------------------------------------------------- the data behind a figure
  // A figure's <details class="chart-data"> opens as a modal dialog over the slide (in
  // the slide it would make the slide scroll): its table is moved into the dialog while
  // open and back when it closes, so its numbers' ids and cards are the same. A number's
  // card (and a term's tip), which site.js puts in <body>, is moved into the dialog while
  // it is open, since a modal dialog makes the rest of the page inert.
  function dataDialog(stage) {
    var dialog = null;
    var title = null;
    var from = null;      // the <details> whose table is in the dialog
    var moved = [];       // [node, its parent before] of what was moved in
    var watch = null;

    function build() {
      dialog = document.createElement("dialog");
      dialog.className = "deck-data";
      dialog.setAttribute("aria-labelledby", "deck-data-title");
      title = document.createElement("h2");
      title.id = "deck-data-title";
      var close = document.createElement("button");
      close.type = "button";
      close.className = "deck-data-close";
      close.textContent = "Close";
      close.addEventListener("click", function () { dialog.close(); });
      dialog.appendChild(title);
      dialog.appendChild(close);
      dialog.addEventListener("click", function (e) {
        if (e.target === dialog) {
          var r = dialog.getBoundingClientRect();    // a click on the backdrop closes it
          var inside = e.clientX >= r.left && e.clientX <= r.right &&
            e.clientY >= r.top && e.clientY <= r.bottom;
          if (!inside) dialog.close();
        }
      });
      dialog.addEventListener("close", putBack);
      document.body.appendChild(dialog);
    }

    function adopt(node) {
      if (node.nodeType !== 1 || !node.matches("#cit-prov-card, .term-tip")) return;
      if (node.parentNode !== dialog) {
        moved.push([node, node.parentNode]);
        dialog.appendChild(node);
      }
    }

    function open(details) {
      if (!dialog) build();
      from = details;
      var summary = details.querySelector("summary");
      title.textContent = summary ? summary.textContent : "The data behind this figure";
      var closeBtn = dialog.querySelector(".deck-data-close");
      Array.prototype.slice.call(details.children).forEach(function (c) {
        if (c !== summary) {
          moved.push([c, details]);
          dialog.insertBefore(c, closeBtn);
        }
      });
      Array.prototype.forEach.call(document.body.children, adopt);
      watch = new MutationObserver(function (records) {
        records.forEach(function (r) { Array.prototype.forEach.call(r.addedNodes, adopt); });
      });
      watch.observe(document.body, { childList: true });
      dialog.showModal();
    }

    function putBack() {
      if (watch) watch.disconnect();
      watch = null;
      moved.forEach(function (m) {
        if (m[1] === from) from.appendChild(m[0]);
        else document.body.appendChild(m[0]);
      });
      moved = [];
      from = null;
    }

    stage.addEventListener("click", function (e) {
      var summary = e.target.closest && e.target.closest("details.chart-data > summary");
      if (!summary || !stage.contains(summary)) return;
      e.preventDefault();
      open(summary.parentNode);
    });
  }

  // ---------------------------------------------------------- F, S, O and ?
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

  window.CIT_DECK = {
    slides: slides,
    presenting: presenting,
    current: function () { return current; },
    step: function () { return stepAt; },
    stepsOf: function (i) { return stepsOf(i).length; },
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
        show(0, false, 0);
        break;
      case "End":
        show(n - 1, false, ALL);
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
    var i = indexFromHash();
    if (i !== current) show(i);
  });

  dataDialog(deck);
  show(indexFromHash(), true);

  if (presenting) withViews(function (v) { v.presenter(); });
})();
