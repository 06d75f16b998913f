/* site.js (every page, no dependencies): every number (<data class="num" data-id="…">,
   or a figure's mark <g class="fig-mark" data-id="…">) and every checked claim's mark
   (<data class="claim-mark">) becomes a button that opens its provenance card, and
   every glossary term
   (<a class="term" data-term="…">) shows its definition on hover or focus.

   This part only prepares the page: it gives the numbers their role, keyboard focus and
   ARIA state, gives each term an (empty) tooltip, and listens. The cards themselves
   (static/cards.js) load the first time a reader points at, focuses or touches a
   number or a term, so a page view that never does carries none of that code; what the
   reader asked for before it arrived (a click, Enter, a focus, a hover) happens as soon
   as it has. From then on every event goes to cards.js. */
(function () {
  "use strict";

  var CARD_ID = "cit-prov-card";
  var TERM = "a.term[data-term]";
  // a number: its text element, or a mark of a build-time SVG figure (cit/svgplot.py);
  // or a checked claim's mark (cit/claims.py)
  var NUM = "data.num, .fig-mark[data-id], data.claim-mark";
  var me = document.currentScript || document.querySelector('script[src$="static/site.js"]');
  var cardsSrc = me && me.src ? me.src.replace(/site\.js([?#].*)?$/, "cards.js") : "";
  var ui = null;
  var uiState = "idle";   // idle | loading | ready | failed
  var intent = null;      // what the reader asked for before cards.js arrived

  function closestFrom(target, selector) {
    return target && target.closest ? target.closest(selector) : null;
  }

  /* cards.js and its sheet (static/cards.css, which no page links) come together; a
     card opens once both are here, so it is never drawn unstyled. */
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

  /* Before cards.js is here, remember the last request and whether it still holds. */
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

  /* A claim's mark is named for a screen reader: a hypothesis (one seed) says so. */
  function claimLabel(mark) {
    return mark.classList.contains("claim-hyp")
      ? "One-seed hypothesis, checked against the data: show the evidence"
      : "Checked claim: show the evidence";
  }

  function setUpNumbers(root) {
    var nums = (root || document).querySelectorAll(NUM);
    for (var i = 0; i < nums.length; i++) {
      var num = nums[i];
      // inside a formula a number stays a plain token: MathML's children may not take
      // the focus (axe's nested-interactive); a click or tap still opens its card
      if (num.closest("math")) continue;
      num.setAttribute("aria-controls", CARD_ID);
      if (!num.hasAttribute("tabindex")) num.tabIndex = 0;
      num.setAttribute("role", "button");
      // a claim's mark says what it is (docs/claims.md, "The mark")
      if (num.classList.contains("claim-mark")) num.setAttribute("aria-label", claimLabel(num));
      num.setAttribute("aria-haspopup", "dialog");
      num.setAttribute("aria-expanded", "false");
    }
  }

  /* Every term link gets its tooltip at once, empty, so aria-describedby is right from
     the start; cards.js puts the words in. A page without data has no definitions. */
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

  /* A long page's outline (cit/render.py) is open where it sits in the margin, beside
     the text, and closed above the text on a narrower screen; it is fixed there, out of
     the flow, so opening it moves nothing. */
  function setUpOutline() {
    var box = document.querySelector(".page-outline details");
    var wide = window.matchMedia ? window.matchMedia("(min-width: 100rem)") : null;
    if (!box || !wide) return;
    var follow = function () { box.open = wide.matches; };
    follow();
    if (wide.addEventListener) wide.addEventListener("change", follow);
  }

  /* The search box: its script (static/search.js) loads on the first press of the
     header's Search button, and Pagefind's module and index only then. */
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
  /* "/" and Ctrl-K (Cmd-K) open the box too, unless the reader is typing in a field */
  document.addEventListener("keydown", function (e) {
    var k = e.key, t = e.target, c = e.ctrlKey || e.metaKey;
    if ((k === "/" ? c : !(c && /^k$/i.test(k))) || e.altKey || e.defaultPrevented ||
        t.isContentEditable || closestFrom(t, "input,textarea,select,dialog[open]")) return;
    e.preventDefault();
    openSearch();
  });
  document.documentElement.classList.add("has-js");

  // numbers a script adds later (the number index's rows) are prepared the same way
  window.CIT_SITE = { prepare: setUpNumbers };

  function init() {
    setUpNumbers();
    setUpTerms();
    setUpOutline();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
