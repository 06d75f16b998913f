/* search.js: the site's search box. site.js loads this file the first time a reader
   opens the box (the header's Search button), so a page view that never does carries
   none of it; this file then loads Pagefind's search module and its index
   (pagefind/, built by cit/search.py) on the box's first opening, and fetches only
   the index pieces a query needs.

   Results are pages, glossary terms (at their entry) and numbers (at their row of the
   number index). Pages' prose is listed first and the number index's pages after it
   (of the LOOK best results, told apart by the index's address), as an index row's
   heading would otherwise outrank the prose. (Pagefind's filters would do it in the
   index, but the filter files it writes differ from build to build.) Their excerpts come marked with <mark>; they are parsed into an inert
   document and copied as text and mark elements, never inserted as markup.

   From file:// a browser will not run Pagefind's module: the box says so in one line
   and links the site's menu, which lists every page. */
window.CIT_SEARCH = (function () {
  "use strict";

  var MAX = 10;            // pages listed
  var MAX_INDEX = 3;       // the number index's pages kept after the prose (more if room)
  var LOOK = 24;           // best results read to sort prose above the index
  var INDEX_PAGE = /#index-/;   // a number index page's address (cit/search.py)
  var SUBS = 4;            // sections, terms or numbers listed under each
  var PAUSE_MS = 150;
  var me = document.querySelector('script[src$="static/search.js"]');
  var root = me ? new URL("../", me.src) : new URL("./", location.href);
  var dialog = null, input = null, status = null, list = null;
  var engine = null;       // Pagefind's module once loaded, or a rejected promise
  var asked = 0;           // the latest query's number: older answers are dropped

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function build() {
    var sheet = el("link");
    sheet.rel = "stylesheet";
    sheet.href = new URL("static/search.css", root).href;
    document.head.appendChild(sheet);
    dialog = el("dialog", "search-dialog");
    dialog.id = "cit-search";
    dialog.setAttribute("aria-labelledby", "cit-search-title");
    var head = el("div", "search-head");
    var title = el("h2", "search-title", "Search this site");
    title.id = "cit-search-title";
    var close = el("button", "search-close", "Close");
    close.type = "button";
    close.addEventListener("click", function () { dialog.close(); });
    head.appendChild(title);
    head.appendChild(close);
    var form = el("form", "search-form");
    form.setAttribute("role", "search");
    form.addEventListener("submit", function (ev) { ev.preventDefault(); });
    input = el("input", "search-input");
    input.type = "search";
    input.setAttribute("aria-label", "Words, a glossary term or a number's id");
    input.placeholder = "Words, a term or a number id";
    input.autocomplete = "off";
    input.addEventListener("input", function () { query(input.value); });
    form.appendChild(input);
    status = el("p", "search-status");
    status.setAttribute("role", "status");
    list = el("ol", "search-results");
    dialog.appendChild(head);
    dialog.appendChild(form);
    dialog.appendChild(status);
    dialog.appendChild(list);
    dialog.addEventListener("click", function (ev) {
      if (ev.target === dialog) dialog.close();           // a click on the backdrop
      var a = ev.target.closest ? ev.target.closest("a") : null;
      if (a && dialog.contains(a)) dialog.close();          // a result or the menu link
    });
    document.body.appendChild(dialog);
  }

  function offline() {
    status.textContent = "";
    status.appendChild(document.createTextNode(
      "Search needs the site served over HTTP; opened from a file, a browser will not run it. "));
    var a = el("a", "", "Every page is in the site menu.");
    a.href = "#site-nav";
    status.appendChild(a);
    input.disabled = true;
  }

  function load() {
    if (!engine) {
      engine = import(new URL("pagefind/pagefind.js", root).href).then(function (pf) {
        pf.options({ baseUrl: root.pathname });
        return pf;
      });
    }
    return engine;
  }

  /* An excerpt's text and marks, from Pagefind's marked-up string. */
  function excerpt(html) {
    var p = el("p", "search-excerpt");
    var doc = new DOMParser().parseFromString("<p>" + html + "</p>", "text/html");
    var nodes = doc.body.firstChild ? doc.body.firstChild.childNodes : [];
    for (var i = 0; i < nodes.length; i++) {
      var n = nodes[i];
      if (n.nodeType === 1 && n.tagName === "MARK") p.appendChild(el("mark", "", n.textContent));
      else p.appendChild(document.createTextNode(n.textContent));
    }
    return p;
  }

  /* Pagefind lists a page's sub-results in page order; best first here: a title that
     holds the query, then the most weight of matched words. */
  function rank(subs, words) {
    var q = words.toLowerCase();
    var score = function (s) {
      var w = (s.weighted_locations || []).reduce(function (t, l) { return t + (l.weight || 1); }, 0);
      return ((s.title || "").toLowerCase().indexOf(q) >= 0 ? 1e6 : 0) + w;
    };
    return subs.map(function (s, i) { return [score(s), i, s]; })
      .sort(function (a, b) { return b[0] - a[0] || a[1] - b[1]; })
      .map(function (t) { return t[2]; });
  }

  function show(found, total, words) {
    list.textContent = "";
    found.forEach(function (r) {
      var li = el("li", "search-result");
      var a = el("a", "", (r.meta && r.meta.title) || r.url);
      a.href = r.url;
      li.appendChild(a);
      // the sections, terms or number rows of the page that match, best first
      var subs = rank((r.sub_results || []).filter(function (s) { return s.url !== r.url; }), words);
      if (!subs.length) li.appendChild(excerpt(r.excerpt || ""));
      var ul = el("ul", "search-subs");
      subs.slice(0, SUBS).forEach(function (s) {
        var item = el("li");
        var link = el("a", "", s.title || s.url);
        link.href = s.url;
        item.appendChild(link);
        item.appendChild(excerpt(s.excerpt || ""));
        ul.appendChild(item);
      });
      if (subs.length) li.appendChild(ul);
      list.appendChild(li);
    });
    status.textContent = total === 0 ? "Nothing found for \u201c" + words + "\u201d."
      : total > found.length ? "The first " + found.length + " of " + total + " results."
      : total === 1 ? "One result." : total + " results.";
  }

  function query(words) {
    var mine = ++asked;
    words = words.trim();
    if (!words) { list.textContent = ""; status.textContent = ""; return; }
    status.textContent = "Searching\u2026";
    load().then(function (pf) {
      // a pause in typing before asking: only the latest query goes to Pagefind
      return new Promise(function (resolve) { setTimeout(resolve, PAUSE_MS); }).then(function () {
        return mine === asked ? pf.search(words) : null;
      });
    }).then(function (search) {
      if (!search || mine !== asked) return null;      // a newer query took over
      return Promise.all(search.results.slice(0, LOOK).map(function (r) { return r.data(); }))
        .then(function (found) {
          var prose = found.filter(function (d) { return !INDEX_PAGE.test(d.url); });
          var index = found.filter(function (d) { return INDEX_PAGE.test(d.url); });
          var kept = index.slice(0, Math.max(MAX_INDEX, MAX - prose.length));
          if (mine === asked) show(prose.slice(0, MAX - kept.length).concat(kept),
                                   search.results.length, words);
        });
    }).catch(function () {
      if (mine === asked) status.textContent = "The search index did not load.";
    });
  }

  function open() {
    if (!dialog) build();
    if (!dialog.open) dialog.showModal();
    if (location.protocol === "file:") { offline(); return; }
    input.focus();
    load().catch(function () { status.textContent = "The search index did not load."; });
  }

  return { open: open };
})();
