/* deck.js: turns <main class="deck"> with <section class="slide" id="slide-K"> children
   into one slide per screen. Keys: ArrowRight, PageDown, Space (next); ArrowLeft, PageUp,
   Shift+Space (previous); Home, End. A click on the right two-thirds of a slide goes on,
   on the left third goes back; a swipe does the same on touch screens. The URL hash
   follows the slide (#slide-K) so a reload or a shared link opens the same slide.
   Without this script the deck stays a readable stacked page. */
(function () {
  "use strict";

  var deck = document.querySelector("main.deck");
  if (!deck) return;
  var slides = Array.prototype.slice.call(deck.querySelectorAll("section.slide"));
  var n = slides.length;
  if (!n) return;

  var current = -1;
  document.documentElement.classList.add("deck-js");

  // Clicks and keys on these belong to the element, not to the deck.
  var OWN_CLICKS = "a, button, input, select, textarea, label, summary, details, " +
    "data.num, [role='button'], [role='dialog'], .prov-card, .term-tip, .chart, " +
    ".js-plotly-plot, .chain-controls";
  var OWN_KEYS = "input, select, textarea, [contenteditable=''], [contenteditable='true'], " +
    "[role='dialog'], .prov-card";
  var OWN_SPACE = "a, button, summary, data.num, [role='button'], [role='radio'], " +
    "[role='checkbox']";

  function make(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text) node.textContent = text;
    return node;
  }

  var bar = make("nav", "deck-bar");
  bar.setAttribute("aria-label", "Slides");
  var prevBtn = make("button", "deck-prev", "\u2190 Previous");
  prevBtn.type = "button";
  var status = make("p", "deck-status");
  status.setAttribute("aria-live", "polite");
  status.setAttribute("aria-atomic", "true");
  status.style.margin = "0";
  var nextBtn = make("button", "deck-next", "Next \u2192");
  nextBtn.type = "button";
  bar.appendChild(prevBtn);
  bar.appendChild(status);
  bar.appendChild(nextBtn);
  var progress = make("div", "deck-progress");
  progress.setAttribute("aria-hidden", "true");
  document.body.appendChild(progress);
  document.body.appendChild(bar);

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

  function show(i) {
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
    progress.style.width = ((i + 1) / n) * 100 + "%";
    var hash = "#slide-" + (i + 1);
    if (window.location.hash !== hash) {
      try {
        history.replaceState(history.state, "", hash);
      } catch (err) {
        // Some file:// contexts refuse replaceState; the slide still changes.
      }
    }
    // The browser scrolls to the #slide-K target (on load, and when the slide takes
    // focus); a scroll margin as tall as everything above the slide makes that scroll
    // land at the top of the page, so the site header stays in view.
    slide.style.scrollMarginTop = Math.max(0, slide.getBoundingClientRect().top + window.scrollY) + "px";
    if (focusWasInOld) slide.focus({ preventScroll: true });
    if (old && slide.getBoundingClientRect().top < 0) window.scrollTo(0, 0);
  }

  function go(step) {
    show(current + step);
  }

  prevBtn.addEventListener("click", function () { go(-1); });
  nextBtn.addEventListener("click", function () { go(1); });

  document.addEventListener("keydown", function (e) {
    if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return;
    var t = e.target && e.target.closest ? e.target : document.body;
    if (t.closest(OWN_KEYS)) return;
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
        if (t.closest(OWN_SPACE)) return;
        go(e.shiftKey ? -1 : 1);
        break;
      case "Home":
        show(0);
        break;
      case "End":
        show(n - 1);
        break;
      default:
        return;
    }
    e.preventDefault();
  });

  deck.addEventListener("click", function (e) {
    if (e.defaultPrevented || e.button !== 0) return;
    if (e.target.closest && e.target.closest(OWN_CLICKS)) return;
    var sel = window.getSelection ? window.getSelection() : null;
    if (sel && !sel.isCollapsed && String(sel).trim()) return; // the reader is selecting text
    var width = document.documentElement.clientWidth || window.innerWidth;
    go(e.clientX < width / 3 ? -1 : 1);
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
    if (!touch || !e.changedTouches.length) return;
    var dx = e.changedTouches[0].clientX - touch.x;
    var dy = e.changedTouches[0].clientY - touch.y;
    var quick = Date.now() - touch.t < 800;
    touch = null;
    if (quick && Math.abs(dx) > 50 && Math.abs(dx) > 1.5 * Math.abs(dy)) go(dx < 0 ? 1 : -1);
  }, { passive: true });

  window.addEventListener("hashchange", function () {
    show(indexFromHash());
  });

  show(indexFromHash());
})();
