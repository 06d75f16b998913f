/* numindex.js: the rows of /method's number index (cit/blocks/generic.py number_index).
   The page holds one closed group per id prefix and no rows: a phone reads it at once.
   When the reader opens a group, or follows a link to a row (#n-<id>), this builds the
   group's rows from the page's provenance script (<body data-prov>), the one the cards
   read: every number's kind, value, text, unit, sources, locator and computation, and
   under x its raw value attribute and the pages it appears on. Rows are made with
   DOM calls (no markup strings), and their numbers are prepared by site.js, so each
   opens its card like any other. */
(function () {
  "use strict";

  var box = document.getElementById("number-index");
  if (!box) return;
  var page = document.body.getAttribute("data-page");
  var src = document.body.getAttribute("data-prov");
  var data = null;
  var state = "idle";   // idle | loading | ready | failed
  var waiting = [];
  var HEAD = ["Id", "Shown as", "Unit", "Kind", "Appears on", "Source", "Locator", "Computation"];

  function found() {
    var all = window.CIT_PROV;
    return all && Object.prototype.hasOwnProperty.call(all, page) ? all[page] : null;
  }

  function settle(s) {
    state = s;
    data = s === "ready" ? found() : null;
    waiting.splice(0).forEach(function (f) { f(); });
  }

  function withData(then) {
    waiting.push(then);
    if (state === "ready" || state === "failed") return settle(state);
    if (state === "loading") return;
    if (found()) return settle("ready");
    state = "loading";
    var script = document.createElement("script");
    script.src = src;
    script.async = true;
    script.onload = function () { settle(found() && found().x ? "ready" : "failed"); };
    script.onerror = function () { settle("failed"); };
    document.head.appendChild(script);
  }

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function str(i) {
    return typeof i === "number" && data.t[i] !== undefined ? data.t[i] : "";
  }

  function sourceCell(indices) {
    var td = el("td", "prov");
    if (!indices.length) td.textContent = "our own data";
    indices.forEach(function (k, j) {
      var s = data.s[k] || [];
      if (j) td.appendChild(document.createTextNode("; "));
      td.appendChild(el("code", "", str(s[0])));
      if (str(s[1])) td.appendChild(document.createTextNode(" at " + str(s[1]).slice(0, 12)));
    });
    return td;
  }

  function pagesCell(pages) {
    var td = el("td");
    if (!pages.length) td.textContent = "only here";
    pages.forEach(function (k, j) {
      var p = data.x.p[k];
      if (j) td.appendChild(document.createTextNode(", "));
      var a = el("a", "", p[1]);
      a.href = p[0];
      td.appendChild(a);
    });
    return td;
  }

  function row(id) {
    var e = data.n[id];
    var x = data.x.r[id] || ["", []];
    var tr = el("tr");
    tr.id = "n-" + id;
    var th = el("th", "prov", id);
    th.scope = "row";
    var num = el("data", "num", e[2]);
    num.setAttribute("value", x[0]);
    num.setAttribute("data-id", id);
    // the kinds a number shows in its shape, as cit/markup.py SHAPED_KINDS
    if (["hypothetical", "extrapolated", "illustrative"].indexOf(str(e[0])) >= 0)
      num.setAttribute("data-kind", str(e[0]));
    var shown = el("td", "n");
    shown.appendChild(num);
    tr.appendChild(th);
    tr.appendChild(shown);
    tr.appendChild(el("td", "prov", str(e[3])));
    tr.appendChild(el("td", "", str(e[0])));
    tr.appendChild(pagesCell(x[1]));
    tr.appendChild(sourceCell(e[4] || []));
    tr.appendChild(el("td", "prov", str(e[5])));
    tr.appendChild(el("td", "prov", str(e[6])));
    return tr;
  }

  function table(group, ids) {
    var wrap = el("div", "table-wrap");
    wrap.tabIndex = 0;
    wrap.setAttribute("role", "region");
    var t = el("table", "data number-index");
    var cap = el("caption", "", "Numbers whose id starts with " + group + ".");
    cap.id = "index-" + group + "-caption";
    wrap.setAttribute("aria-labelledby", cap.id);
    t.appendChild(cap);
    var head = el("tr");
    HEAD.forEach(function (h, k) {
      var c = el("th", k === 1 ? "n" : "", h);
      c.scope = "col";
      head.appendChild(c);
    });
    t.appendChild(el("thead")).appendChild(head);
    var body = el("tbody");
    ids.forEach(function (id) { body.appendChild(row(id)); });
    t.appendChild(body);
    wrap.appendChild(t);
    return wrap;
  }

  /* Build a group's rows once; then() runs when they are there (or could not be). */
  function build(details, then) {
    if (details.getAttribute("data-built")) { if (then) then(); return; }
    var wait = details.querySelector(".index-wait");
    details.setAttribute("aria-busy", "true");
    withData(function () {
      details.removeAttribute("aria-busy");
      if (!data) {
        if (wait) wait.textContent = "The provenance file did not load; numbers.json at the site's root lists every number.";
        if (then) then();
        return;
      }
      if (details.getAttribute("data-built")) { if (then) then(); return; }
      var group = details.getAttribute("data-group");
      var ids = Object.keys(data.n).filter(function (id) {
        return id.split(".")[0] === group && data.x.r[id];
      }).sort();
      var t = table(group, ids);
      if (wait) wait.replaceWith(t); else details.appendChild(t);
      details.setAttribute("data-built", String(ids.length));
      if (window.CIT_SITE) window.CIT_SITE.prepare(t);
      if (then) then();
    });
  }

  /* A link to a row (#n-<id>) or a group (#index-<prefix>, #index-<prefix>.2, as
     search results give) opens the group and shows it. */
  function follow() {
    var hash = decodeURIComponent(location.hash.slice(1));
    var named = hash.indexOf("n-") === 0 ? hash.slice(2)
      : hash.indexOf("index-") === 0 ? hash.slice(6) : null;   // a row, or a group
    if (named === null) return;
    var group = document.getElementById("index-" + named.split(".")[0]);
    if (!group || !group.classList.contains("index-group")) return;
    group.open = true;
    build(group, function () {
      var target = document.getElementById(hash.indexOf("n-") === 0 ? hash : group.id);
      if (!target) return;
      var old = box.querySelector("tr.is-target");
      if (old) old.classList.remove("is-target");
      if (target.tagName === "TR") target.classList.add("is-target");
      target.scrollIntoView({ block: "center" });
    });
  }

  box.addEventListener("toggle", function (ev) {
    if (ev.target.open) build(ev.target);
  }, true);
  window.addEventListener("hashchange", follow);
  follow();
})();
