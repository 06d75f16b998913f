/* cards.js: the provenance card of every number and the definition of every glossary
   term. site.js loads it the first time a reader reaches for a number or a term (and on
   no page view that never does), then hands it every event; see site.js.

   The provenance and definitions are not in the page either: the build writes them to
   a script of the page's own, named by <body data-prov="…">, that files them under the
   page's URL (<body data-page="…">) in window.CIT_PROV. This file loads that one too,
   as a classic script, so that it works from file://. Until it has arrived a card
   shows what the number element itself says (kind, raw value) and "loading…"; a page
   without the attribute gets cards from the elements alone and no definitions. */
window.CIT_CARDS = (function () {
  "use strict";

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

  /* ------------------------------------------------------------ the page's data */

  /* The compact form (cit/assets.py prov_payload): t = strings; s = sources as
     [path] or [path, commit, blob] indices into t; n = id -> [kind, value, text, unit,
     [sources], locator, computation, ([source, "L12"])] (kind, unit, locator,
     computation index t); g = term key -> [term, definition]; u = the upstream files'
     web address before "<commit>/<path>". */
  var data = null;
  var state = "idle";          // idle | loading | ready | failed | none
  var waiting = [];

  function str(i) {
    return typeof i === "number" && data.t[i] !== undefined ? data.t[i] : "";
  }

  function numberEntry(id) {
    var e = data && has(data.n, id) ? data.n[id] : null;
    if (!e) return null;
    var at = Array.isArray(e[7]) ? e[7] : null;   // [source index, "L12"]: its record's line
    var sources = (e[4] || []).map(function (k) {
      var s = data.s[k] || [];
      var out = { path: str(s[0]) };
      if (str(s[1])) out.commit = str(s[1]);
      if (str(s[2])) out.blob_sha1 = str(s[2]);
      if (at && at[0] === k) out.line = String(at[1]);
      return out;
    });
    var made = data.o && has(data.o, id) ? data.o[id] : null;  // [path index, line]
    return { kind: str(e[0]), value: e[1], text: e[2], unit: str(e[3]),
             provenance: { sources: sources, locator: str(e[5]), computation: str(e[6]),
                           code: made ? { path: str(made[0]), line: made[1] } : null } };
  }

  /* c = claim id -> [checked, verdict, [[label, figure], ...], [sources], computation,
     hypothesis, [[word, tested as], ...]] (cit/assets.py prov_payload). */
  function claimEntry(id) {
    var e = data && data.c && has(data.c, id) ? data.c[id] : null;
    if (!e) return null;
    var sources = (e[3] || []).map(function (k) {
      var s = data.s[k] || [];
      var out = { path: str(s[0]) };
      if (str(s[1])) out.commit = str(s[1]);
      if (str(s[2])) out.blob_sha1 = str(s[2]);
      return out;
    });
    return { checked: e[0], holds: e[1], evidence: e[2] || [], sources: sources,
             computation: e[4], hypothesis: e[5], words: e[6] || [] };
  }

  function termEntry(key) {
    var g = data && data.g && has(data.g, key) ? data.g[key] : null;
    return g ? { term: g[0], definition: g[1] } : null;
  }

  function settle(next) {
    state = next;
    var fns = waiting;
    waiting = [];
    fns.forEach(function (fn) { fn(); });
  }

  /* Ask for the page's data once; the callback runs when it has arrived or failed. */
  function load(then) {
    if (then) waiting.push(then);
    if (state === "idle") {
      var src = document.body ? document.body.getAttribute("data-prov") : null;
      var page = document.body ? document.body.getAttribute("data-page") : null;
      if (!src || page === null) {
        settle("none");
        return;
      }
      state = "loading";
      var script = document.createElement("script");
      script.src = src;
      script.async = true;
      script.onload = function () {
        var all = window.CIT_PROV;
        var found = all && has(all, page) ? all[page] : null;
        if (found && typeof found === "object") {
          data = { t: found.t || [], s: found.s || [], n: found.n || {}, g: found.g || {},
                   c: found.c || {}, u: typeof found.u === "string" ? found.u : "",
                   o: found.o || {}, r: typeof found.r === "string" ? found.r : "" };
          settle("ready");
        } else {
          settle("failed");
        }
      };
      script.onerror = function () { settle("failed"); };
      document.head.appendChild(script);
    } else if (state !== "loading") {
      settle(state);
    }
  }

  /* ------------------------------------------------------------ provenance card */

  var CARD_ID = "cit-prov-card";
  var NUM = "data.num, .fig-mark[data-id], data.claim-mark"; // as in site.js
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

  /* "L12" -> "line 12"; "L1-L168" -> "lines 1 to 168" */
  function lineWords(anchor) {
    var m = /^L(\d+)(?:-L(\d+))?$/.exec(anchor);
    if (!m) return anchor;
    return m[2] ? "lines " + m[1] + " to " + m[2] : "line " + m[1];
  }

  function shortSha(full) {
    var code = make("code", "sha", String(full).slice(0, 7));
    code.title = String(full);
    return code;
  }

  /* An upstream file links to its page at the recorded commit (data.u, the host's
     address before "<commit>/<path>"), at the record's line where the number has one. */
  function sourceItem(src) {
    var li = make("li");
    var path = make("code", "prov-path", src.path || "(unnamed file)");
    if (data && data.u && src.commit && src.path) {
      var link = make("a", "prov-link");
      link.href = String(data.u) + encodeURI(src.commit + "/" + src.path) +
        (src.line ? "#" + encodeURIComponent(src.line) : "");
      link.appendChild(path);
      if (src.line) link.appendChild(document.createTextNode(", " + lineWords(src.line)));
      li.appendChild(link);
    } else {
      li.appendChild(path);
    }
    if (src.commit) {
      li.appendChild(document.createTextNode(" at commit "));
      li.appendChild(shortSha(src.commit));
    }
    if (src.blob_sha1) {
      li.appendChild(document.createTextNode(", blob "));
      li.appendChild(shortSha(src.blob_sha1));
    }
    if (!src.commit && !src.blob_sha1) {
      if (data && data.r && src.path) {
        // our own file, at the build's commit in the project's repository (data.r)
        var own = make("a", "prov-link");
        own.href = String(data.r) + encodeURI(src.path);
        own.appendChild(li.removeChild(path));
        li.appendChild(own);
      }
      li.appendChild(document.createTextNode(" (this repository)"));
    }
    return li;
  }

  /* The line of our code that made the number, at the build's commit (data.r, data.o). */
  function codeItem(code) {
    var path = make("code", "prov-path", code.path);
    if (!data || !data.r) return path;
    var link = make("a", "prov-link");
    link.href = String(data.r) + encodeURI(code.path) + "#L" + encodeURIComponent(code.line);
    link.appendChild(path);
    link.appendChild(document.createTextNode(", line " + code.line));
    return link;
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

  /* What the card of num says, field by field (fillCard lays it out; the tests read
     it for every number of a page without opening each card). */
  function cardFields(num) {
    var id = num.getAttribute("data-id") || "";
    var entry = numberEntry(id) || {};
    var prov = entry.provenance || {};
    var missing = state === "loading" || state === "idle" ? "loading\u2026"
      : state === "failed" ? "could not be loaded" : "not recorded";
    var raw = entry.value !== undefined && entry.value !== null
      ? String(entry.value) : (num.getAttribute("value") || num.getAttribute("data-value") || "");
    return {
      id: id,
      missing: missing,
      kind: entry.kind || num.getAttribute("data-kind") || missing,
      raw: raw || "none",
      shown: (entry.text !== undefined ? String(entry.text) : num.textContent.trim()) +
        (entry.unit ? " " + entry.unit : ""),
      sources: (Array.isArray(prov.sources) ? prov.sources : []).map(function (src) {
        return typeof src === "string" ? { path: src } : (src || {});
      }),
      locator: prov.locator || missing,
      computation: prov.computation || missing,
      code: prov.code || null
    };
  }

  /* Empty the card and give it its name, its kind badge, its id and a close button. */
  function startCard(label, kind, kindTitle, id) {
    card.textContent = "";
    card.setAttribute("aria-label", label);
    var head = make("div", "prov-head"); // not <header>: a second banner landmark
    var badge = make("span", "prov-kind", kind);
    badge.setAttribute("data-kind", kind);
    badge.setAttribute("data-field", "kind");
    badge.title = kindTitle;
    head.appendChild(badge);
    if (id) head.appendChild(make("code", "prov-id", id));
    card.appendChild(head);
    var close = make("button", "prov-close", "\u00d7");
    close.type = "button";
    close.setAttribute("aria-label", "Close");
    close.addEventListener("click", function () { closeCard(true); });
    card.appendChild(close);
  }

  /* A checked claim's card: what was checked, the verdict, the evidence figures and
     the sources (cit/claims.py). */
  function fillClaimCard(mark) {
    var id = mark.getAttribute("data-id") || "";
    var entry = claimEntry(id) || {};
    var missing = state === "loading" || state === "idle" ? "loading\u2026"
      : state === "failed" ? "could not be loaded" : "not recorded";
    startCard("Checked claim: " + (id || "unnamed"), "claim", "Kind of reference", id);
    var dl = make("dl");
    row(dl, "checked", "Checked", entry.checked || missing);
    if (entry.words && entry.words.length) {
      var wl = make("ul", "claim-words");
      entry.words.forEach(function (pair) {
        var li = make("li");
        li.appendChild(make("span", "claim-word", "\u201c" + pair[0] + "\u201d: "));
        li.appendChild(make("span", "claim-word-test", pair[1]));
        wl.appendChild(li);
      });
      row(dl, "words", "Words as tested", wl);
    }
    var verdict = entry.holds === true ? "holds on this build's data"
      : entry.holds === false ? "false" : missing;
    if (entry.hypothesis) verdict += " (compares single-seed runs: a hypothesis)";
    row(dl, "verdict", "Verdict", verdict);
    var ev = make("ul", "claim-evidence");
    (entry.evidence || []).forEach(function (pair) {
      var li = make("li");
      li.appendChild(make("span", "claim-ev-label", pair[0] + ": "));
      li.appendChild(make("span", "claim-ev-figure", pair[1]));
      ev.appendChild(li);
    });
    row(dl, "evidence", "Evidence", ev.childNodes.length ? ev : missing);
    var sources = Array.isArray(entry.sources) ? entry.sources : [];
    var ul = make("ul");
    sources.forEach(function (src) { ul.appendChild(sourceItem(src)); });
    row(dl, "sources", sources.length > 1 ? "Sources" : "Source", sources.length ? ul : missing);
    row(dl, "computation", "How", entry.computation || missing);
    card.appendChild(dl);
  }

  function fillCard(num) {
    if (num.classList.contains("claim-mark")) {
      fillClaimCard(num);
      if (state === "loading" || state === "idle") card.setAttribute("aria-busy", "true");
      else card.removeAttribute("aria-busy");
      return;
    }
    var f = cardFields(num);
    var id = f.id, kind = f.kind;

    startCard("Where this number comes from: " + (id || "unnamed number"), kind,
      "Kind of number", id);

    var dl = make("dl");
    row(dl, "shown", "Shown as", f.shown);
    row(dl, "value", "Raw value", f.raw);
    if (f.sources.length) {
      var ul = make("ul");
      f.sources.forEach(function (src) { ul.appendChild(sourceItem(src)); });
      row(dl, "sources", f.sources.length > 1 ? "Sources" : "Source", ul);
    } else {
      row(dl, "sources", "Source", f.missing);
    }
    row(dl, "locator", "Where in it", f.locator);
    row(dl, "computation", "How", f.computation);
    if (f.code) row(dl, "code", "Made by", codeItem(f.code));
    card.appendChild(dl);
    if (state === "loading" || state === "idle") card.setAttribute("aria-busy", "true");
    else card.removeAttribute("aria-busy");
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
    if (state === "idle" || state === "loading") {
      load(function () {
        if (owner === num && !card.hidden) {
          fillCard(num);
          place(card, num);
        }
      });
    }
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

  /* ------------------------------------------------------------ glossary terms */

  var shownTip = null;
  var tipLink = null;

  /* site.js gave every term link an empty tooltip (aria-describedby); the words go in
     once the page's data has arrived. */
  function tipOf(link) {
    var id = link.getAttribute("aria-describedby");
    return id ? document.getElementById(id) : null;
  }

  function fillTip(tip, key) {
    var entry = termEntry(key);
    if (!tip || !entry || !entry.definition) return false;
    if (!tip.childNodes.length) {
      if (entry.term) tip.appendChild(make("strong", null, entry.term));
      tip.appendChild(make("span", null, entry.definition));
    }
    return true;
  }

  function showTip(link) {
    var tip = tipOf(link);
    if (!tip) return;
    tipLink = link;
    load(function () {
      if (tipLink !== link || !fillTip(tip, link.getAttribute("data-term"))) return;
      if (shownTip && shownTip !== tip) shownTip.hidden = true;
      tip.hidden = false;
      shownTip = tip;
      place(tip, link);
    });
  }

  function hideTip() {
    tipLink = null;
    if (shownTip) shownTip.hidden = true;
    shownTip = null;
  }

  /* ------------------------------------------------------------ events */
  /* site.js listens and hands each event here once this script has loaded. */

  function closestFrom(target, selector) {
    return target && target.closest ? target.closest(selector) : null;
  }

  var on = {
    click: function (e) {
      var num = closestFrom(e.target, NUM);
      if (num) {
        openCard(num, false);
        return;
      }
      if (card && !card.hidden && !card.contains(e.target)) closeCard(false);
    },

    keydown: function (e) {
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
        var num = closestFrom(e.target, NUM);
        if (num && !e.altKey && !e.ctrlKey && !e.metaKey) {
          e.preventDefault();
          openCard(num, true);
        }
      }
    },

    focusin: function (e) {
      load();
      var num = closestFrom(e.target, NUM);
      if (num && !refocusing && focusVisible(num)) openCard(num, false);
      var link = closestFrom(e.target, "a.term[data-term]");
      if (link) showTip(link);
    },

    focusout: function (e) {
      if (closestFrom(e.target, "a.term[data-term]")) hideTip();
      if (!card || card.hidden) return;
      var next = e.relatedTarget;
      // Focus moving between the number and its card keeps the card open.
      if (next && (card.contains(next) || next === owner)) return;
      if (e.target === owner || card.contains(e.target)) {
        if (next) closeCard(false);
      }
    },

    mouseover: function (e) {
      if (closestFrom(e.target, NUM)) load();
      var link = closestFrom(e.target, "a.term[data-term]");
      if (link) showTip(link);
    },

    mouseout: function (e) {
      var link = closestFrom(e.target, "a.term[data-term]");
      if (link && !(e.relatedTarget && link.contains(e.relatedTarget))) hideTip();
    },

    touchstart: function () { load(); },

    resize: function () {
      if (card && !card.hidden && owner) place(card, owner);
      hideTip();
    }
  };

  return {
    handle: function (type, e) { if (has(on, type)) on[type](e); },
    openCard: openCard,
    showTip: showTip,
    load: load,
    fields: cardFields
  };
})();
