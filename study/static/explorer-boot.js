/* explorer-boot.js (the page with an explorer block, study/blocks/explorer.py): shows the
   explorer's controls at load and fetches the port (static/explorer.js, about 30 KB) the
   first time a reader reaches for them: a pointer over the form, a focus, a key, a touch
   or a change. A page view that never touches the explorer carries none of its code; the
   tables and the figure at the recorded settings are in the HTML already. A move made
   before the port arrived is recomputed as soon as it has (docs/architecture.md,
   "What a page loads"). */
(function () {
  "use strict";

  var me = document.currentScript || document.querySelector('script[src$="static/explorer-boot.js"]');
  var src = me && me.src ? me.src.replace(/explorer-boot\.js([?#].*)?$/, "explorer.js") : "";
  var INTENT = ["pointerover", "focusin", "keydown", "touchstart", "input", "change"];

  function boot(root) {
    var form = root.querySelector("form.explorer-controls");
    if (!form || !src) return;
    var note = root.querySelector(".explorer-note");
    var live = root.querySelector(".explorer-live-note");
    var state = "idle";     // idle | loading | done
    var moved = false;      // a control changed before the port was here

    function load() {
      if (state !== "idle") return;
      state = "loading";
      var script = document.createElement("script");
      script.src = src;
      script.async = true;
      script.onload = function () {
        state = "done";
        // explorer.js mounts every explorer when it runs; replay what came before it
        var ex = root.explorer || (window.citExplorer && window.citExplorer.mount(root));
        if (ex && moved) ex.show();
      };
      document.head.appendChild(script);
    }

    form.addEventListener("input", function (e) {
      if (state === "done") return;
      if (e.target && e.target.name) e.target.dataset.moved = "1";
      moved = true;
    });
    form.addEventListener("change", function () { if (state !== "done") moved = true; });
    INTENT.forEach(function (type) {
      form.addEventListener(type, load, {passive: true});
    });
    form.hidden = false;
    if (note) note.hidden = true;
    if (live) live.hidden = false;
  }

  function start() {
    document.querySelectorAll("[data-explorer]").forEach(boot);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
