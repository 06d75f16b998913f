/* deck-views.js: the views of a deck that static/deck.js loads when first asked for
   (with deck-views.css), through window.CIT_DECK:
   - the list of keys (?), a modal <dialog> with buttons for the views and for printing;
   - "The data behind this figure", a modal <dialog> over the slide with the figure's table;
   - the overview (O): every slide at once, small; arrows move between them, Enter or a
     click opens one, Esc or O goes back;
   - the presenter view, in the window S opens (the deck's page with ?presenter in its
     address): the current slide, the next one, the current slide's speaker notes (the
     deck's '::: notes' blocks, folded under each slide in the page), the time elapsed
     since the view opened beside the wall clock, and, on a slide with fragments, which
     one comes next: the current slide shows its hidden fragments faintly, the next one
     outlined, and the "Next" panel says "Next: step K of N" and shows the slide as that
     step leaves it. deck.js keeps the two windows on the same slide and step. */
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

  // ---------------------------------------------------------- the keys (?)
  var KEYS = [
    [["\u2192", "Space", "Page Down"], "next step: the slide's next point, else the next slide"],
    [["\u2190", "Shift+Space", "Page Up"], "previous step or slide"],
    [["Home", "End"], "first, last slide"],
    [["F"], "fullscreen, on and off"],
    [["S"], "presenter view in a second window: this slide, the next step, the speaker " +
      "notes, the time elapsed and the clock, kept in step with this one"],
    [["O"], "overview of every slide; arrows and Enter pick one, Esc goes back"],
    [["?"], "this list"],
    [["Ctrl+P", "\u2318P"], "print, or make a PDF: choose \u201cSave as PDF\u201d as the " +
      "printer; each slide prints on a landscape page of its own, every point shown"],
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
    VIEWS.concat([["print", "Print or save as PDF"], ["", "Close"]]).forEach(function (v) {
      var b = make("button", "", v[1]);
      b.type = "button";
      b.addEventListener("click", function () {
        dialog.close();
        if (v[0] === "print") window.print();
        else if (v[0]) api.key(v[0]);
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

  // ---------------------------------------------------------- the overview (O)
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

  // ---------------------------------------------------------- the presenter view
  function withoutIds(node) {
    node.removeAttribute("id");
    Array.prototype.forEach.call(node.querySelectorAll("[id]"), function (e) {
      e.removeAttribute("id");
    });
    return node;
  }

  // The "Next" panel: the current slide as the next fragment leaves it, while one is
  // hidden; else the next slide as it first appears (its fragments hidden).
  function nextPreview(box, label, i, step) {
    var steps = api.stepsOf(i);
    var onThis = step < steps;
    box.textContent = "";
    label.textContent = onThis ? "Next: step " + (step + 1) + " of " + steps : "Next slide";
    if (!onThis && i + 1 >= n) {
      box.appendChild(make("p", "presenter-end", "End of the deck"));
      return;
    }
    var copy = withoutIds(slides[onThis ? i : i + 1].cloneNode(true));
    copy.classList.add("is-current");
    copy.removeAttribute("aria-labelledby");
    Array.prototype.forEach.call(copy.querySelectorAll(".step"), function (li, j) {
      li.classList.toggle("is-shown", onThis && j <= step);
    });
    box.appendChild(copy);
  }

  // On the presenter's own slide: the hidden fragments faint, the next one outlined.
  function markSteps(i, step) {
    slides.forEach(function (s, k) {
      Array.prototype.forEach.call(s.querySelectorAll(".step"), function (li, j) {
        li.classList.toggle("is-next-step", k === i && j === step);
      });
    });
  }

  function notesOf(box, i) {
    box.textContent = "";
    var notes = slides[i].querySelector(".slide-notes");
    Array.prototype.forEach.call(notes ? notes.children : [], function (c) {
      if (c.tagName !== "SUMMARY") box.appendChild(withoutIds(c.cloneNode(true)));
    });
    if (!notes) box.appendChild(make("p", "presenter-none", "No notes for this slide."));
  }

  function pad(k) {
    return (k < 10 ? "0" : "") + k;
  }

  // Elapsed time (with its restart button) beside the wall clock.
  function clocks() {
    var started = Date.now();
    var row = make("p", "presenter-clock");
    var timer = make("span", "presenter-timer");
    timer.setAttribute("role", "timer");
    timer.setAttribute("aria-label", "Time elapsed");
    var restart = make("button", "presenter-restart", "Restart timer");
    restart.type = "button";
    var wall = make("time", "presenter-wall");
    wall.setAttribute("aria-label", "Time of day");
    row.appendChild(timer);
    row.appendChild(restart);
    row.appendChild(wall);
    function tick() {
      var s = Math.floor((Date.now() - started) / 1000);
      timer.textContent = Math.floor(s / 60) + ":" + pad(s % 60);
      var now = new Date();
      wall.textContent = pad(now.getHours()) + ":" + pad(now.getMinutes());
      wall.dateTime = wall.textContent;
    }
    restart.addEventListener("click", function () {
      started = Date.now();
      tick();
    });
    tick();
    setInterval(tick, 1000);
    return row;
  }

  function presenter() {
    root.classList.add("deck-presenter");
    var panel = make("aside", "presenter-panel");
    panel.setAttribute("aria-label", "Presenter view");
    var nextLabel = make("h2", "presenter-label", "Next slide");
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
    panel.appendChild(nextLabel);
    panel.appendChild(nextBox);
    panel.appendChild(notesBox);
    panel.appendChild(clocks());
    deck.after(panel);

    function update(i, step) {
      nextPreview(nextBox, nextLabel, i, step);
      markSteps(i, step);
      notesOf(notesText, i);
    }
    api.onShow(update);
    update(api.current(), api.step());
  }

  // ---------------------------------------------------------- the data behind a figure
  // A figure's <details class="chart-data"> opens as a modal dialog over the slide (in
  // the slide it would make the slide scroll; deck.js asks for it): its table is moved
  // into the dialog while open and back when it closes, so its numbers' ids and cards
  // are the same. A number's card (and a term's tip), which site.js puts in <body>, is
  // moved into the dialog while it is open, since a modal dialog makes the rest of the
  // page inert. Returns open(details).
  function dataDialog() {
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

    return open;
  }

  api.views = { help: help, overview: overview, key: key, click: click, presenter: presenter,
    data: dataDialog() };
})();
