/* site.js (every page, no dependencies): a provenance card for every number and a
   definition on hover or focus for every glossary term.

   Numbers are <data class="num" data-id="…"> elements; their provenance comes from the
   page's <script type="application/json" id="cit-numbers">. Terms are <a class="term"
   data-term="…"> links; their definitions come from <script … id="cit-terms">. A page
   without either simply gets no cards or no definitions, and no errors. */
(function () {
  "use strict";

  function readJSON(id) {
    var node = document.getElementById(id);
    if (!node) return {};
    try {
      var value = JSON.parse(node.textContent || "{}");
      return value && typeof value === "object" ? value : {};
    } catch (err) {
      return {};
    }
  }

  function make(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function has(obj, key) {
    return Object.prototype.hasOwnProperty.call(obj, key);
  }

  /* Place a floating element under its anchor (above when there is no room below),
     kept inside the viewport horizontally. */
  function place(floating, anchor) {
    var r = anchor.getBoundingClientRect();
    var sx = window.scrollX || window.pageXOffset;
    var sy = window.scrollY || window.pageYOffset;
    var vw = document.documentElement.clientWidth;
    var w = floating.offsetWidth;
    var h = floating.offsetHeight;
    var left = Math.max(8, Math.min(r.left, vw - w - 8));
    var top = r.bottom + 6;
    if (top + h > window.innerHeight && r.top - h - 6 > 0) top = r.top - h - 6;
    floating.style.left = left + sx + "px";
    floating.style.top = top + sy + "px";
  }

  var numbers = readJSON("cit-numbers");
  var terms = readJSON("cit-terms");

  /* ------------------------------------------------------------ provenance card */

  var CARD_ID = "cit-prov-card";
  var card = null;
  var owner = null;
  var refocusing = false; // returning focus to a number must not reopen its card

  function focusVisible(node) {
    try {
      return node.matches(":focus-visible");
    } catch (err) {
      return false;
    }
  }

  function ensureCard() {
    if (card) return card;
    card = make("div", "prov-card");
    card.id = CARD_ID;
    card.setAttribute("role", "dialog");
    card.setAttribute("aria-label", "Where this number comes from");
    card.tabIndex = -1;
    card.hidden = true;
    document.body.appendChild(card);
    return card;
  }

  function shortSha(full) {
    var code = make("code", "sha", String(full).slice(0, 7));
    code.title = String(full);
    return code;
  }

  function sourceItem(src) {
    var li = make("li");
    li.appendChild(make("code", "prov-path", src.path || "(unnamed file)"));
    if (src.commit) {
      li.appendChild(document.createTextNode(" at commit "));
      li.appendChild(shortSha(src.commit));
    }
    if (src.blob_sha1) {
      li.appendChild(document.createTextNode(", blob "));
      li.appendChild(shortSha(src.blob_sha1));
    }
    if (!src.commit && !src.blob_sha1) {
      li.appendChild(document.createTextNode(" (this repository)"));
    }
    return li;
  }

  function row(dl, field, label, content) {
    var dt = make("dt", null, label);
    var dd = make("dd");
    dd.setAttribute("data-field", field);
    if (typeof content === "string") dd.textContent = content;
    else dd.appendChild(content);
    dl.appendChild(dt);
    dl.appendChild(dd);
  }

  function fillCard(num) {
    var id = num.getAttribute("data-id") || "";
    var entry = has(numbers, id) && numbers[id] ? numbers[id] : {};
    var prov = entry.provenance || {};
    var kind = entry.kind || num.getAttribute("data-kind") || "not recorded";
    var raw = entry.value !== undefined && entry.value !== null
      ? String(entry.value) : (num.getAttribute("value") || "");
    var shown = (entry.text !== undefined ? String(entry.text) : num.textContent.trim()) +
      (entry.unit ? " " + entry.unit : "");

    card.textContent = "";
    card.setAttribute("aria-label", "Where this number comes from: " + (id || "unnamed number"));

    var head = make("header");
    var badge = make("span", "prov-kind", kind);
    badge.setAttribute("data-kind", kind);
    badge.setAttribute("data-field", "kind");
    badge.title = "Kind of number";
    head.appendChild(badge);
    if (id) head.appendChild(make("code", "prov-id", id));
    card.appendChild(head);

    var close = make("button", "prov-close", "\u00d7");
    close.type = "button";
    close.setAttribute("aria-label", "Close");
    close.addEventListener("click", function () { closeCard(true); });
    card.appendChild(close);

    var dl = make("dl");
    row(dl, "shown", "Shown as", shown);
    row(dl, "value", "Raw value", raw || "none");
    var sources = Array.isArray(prov.sources) ? prov.sources : [];
    if (sources.length) {
      var ul = make("ul");
      sources.forEach(function (src) {
        ul.appendChild(sourceItem(typeof src === "string" ? { path: src } : (src || {})));
      });
      row(dl, "sources", sources.length > 1 ? "Sources" : "Source", ul);
    } else {
      row(dl, "sources", "Source", "not recorded");
    }
    row(dl, "locator", "Where in it", prov.locator || "not recorded");
    row(dl, "computation", "How", prov.computation || "not recorded");
    card.appendChild(dl);
  }

  function openCard(num, moveFocus) {
    ensureCard();
    if (owner && owner !== num) owner.setAttribute("aria-expanded", "false");
    owner = num;
    fillCard(num);
    card.hidden = false;
    num.setAttribute("aria-expanded", "true");
    place(card, num);
    if (moveFocus) card.focus({ preventScroll: true });
  }

  function closeCard(returnFocus) {
    if (!card || card.hidden) return;
    var was = owner;
    card.hidden = true;
    owner = null;
    if (was) {
      was.setAttribute("aria-expanded", "false");
      if (returnFocus) {
        refocusing = true;
        was.focus({ preventScroll: true });
        refocusing = false;
      }
    }
  }

  function setUpNumbers() {
    var nums = document.querySelectorAll("data.num");
    for (var i = 0; i < nums.length; i++) {
      var num = nums[i];
      if (!num.hasAttribute("tabindex")) num.tabIndex = 0;
      num.setAttribute("role", "button");
      num.setAttribute("aria-haspopup", "dialog");
      num.setAttribute("aria-expanded", "false");
      num.setAttribute("aria-controls", CARD_ID);
    }
    return nums.length;
  }

  /* ------------------------------------------------------------ glossary terms */

  var tips = {};
  var shownTip = null;

  function tipFor(key) {
    if (has(tips, key)) return tips[key];
    var entry = has(terms, key) ? terms[key] : null;
    if (!entry || !entry.definition) {
      tips[key] = null;
      return null;
    }
    var tip = make("div", "term-tip");
    tip.id = "cit-term-tip-" + key.replace(/[^A-Za-z0-9_-]/g, "_");
    tip.setAttribute("role", "tooltip");
    tip.hidden = true;
    if (entry.term) tip.appendChild(make("strong", null, entry.term));
    tip.appendChild(make("span", null, entry.definition));
    document.body.appendChild(tip);
    tips[key] = tip;
    return tip;
  }

  function setUpTerms() {
    var links = document.querySelectorAll("a.term[data-term]");
    for (var i = 0; i < links.length; i++) {
      var tip = tipFor(links[i].getAttribute("data-term"));
      if (tip) links[i].setAttribute("aria-describedby", tip.id);
    }
  }

  function showTip(link) {
    var tip = tipFor(link.getAttribute("data-term"));
    if (!tip) return;
    if (shownTip && shownTip !== tip) shownTip.hidden = true;
    tip.hidden = false;
    shownTip = tip;
    place(tip, link);
  }

  function hideTip() {
    if (shownTip) shownTip.hidden = true;
    shownTip = null;
  }

  /* ------------------------------------------------------------ events */

  function closestFrom(target, selector) {
    return target && target.closest ? target.closest(selector) : null;
  }

  document.addEventListener("click", function (e) {
    var num = closestFrom(e.target, "data.num");
    if (num) {
      openCard(num, false);
      return;
    }
    if (card && !card.hidden && !card.contains(e.target)) closeCard(false);
  });

  document.addEventListener("keydown", function (e) {
    if (e.key === "Escape" || e.key === "Esc") {
      var inCard = card && card.contains(document.activeElement);
      if (card && !card.hidden) {
        closeCard(inCard || document.activeElement === owner);
        e.preventDefault();
      }
      hideTip();
      return;
    }
    if (e.key === "Enter" || e.key === " " || e.key === "Spacebar") {
      var num = closestFrom(e.target, "data.num");
      if (num && !e.altKey && !e.ctrlKey && !e.metaKey) {
        e.preventDefault();
        openCard(num, true);
      }
    }
  });

  document.addEventListener("focusin", function (e) {
    var num = closestFrom(e.target, "data.num");
    if (num && !refocusing && focusVisible(num)) openCard(num, false);
    var link = closestFrom(e.target, "a.term[data-term]");
    if (link) showTip(link);
  });

  document.addEventListener("focusout", function (e) {
    if (closestFrom(e.target, "a.term[data-term]")) hideTip();
    if (!card || card.hidden) return;
    var next = e.relatedTarget;
    // Focus moving between the number and its card keeps the card open.
    if (next && (card.contains(next) || next === owner)) return;
    if (e.target === owner || card.contains(e.target)) {
      if (next) closeCard(false);
    }
  });

  document.addEventListener("mouseover", function (e) {
    var link = closestFrom(e.target, "a.term[data-term]");
    if (link) showTip(link);
  });

  document.addEventListener("mouseout", function (e) {
    var link = closestFrom(e.target, "a.term[data-term]");
    if (link && !(e.relatedTarget && link.contains(e.relatedTarget))) hideTip();
  });

  window.addEventListener("resize", function () {
    if (card && !card.hidden && owner) place(card, owner);
    hideTip();
  });

  function init() {
    setUpNumbers();
    setUpTerms();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
