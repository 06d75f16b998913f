/* deck-steps.js: a deck's fragments, list items marked "- [+]" in the Markdown (class
   "step", cit/fragments.py), which the build adds this script for on a deck that has
   any (docs/architecture.md, "Decks"). deck.js keeps which slide and how many of its
   fragments are shown, and asks this script, as window.CIT_DECK.steps, how many a slide
   has and to show the first k of them; deck.css hides the others, keeping their room. */
(function () {
  "use strict";

  var api = window.CIT_DECK;
  if (!api || !api.slides) return;

  function of(i) {
    return api.slides[i].querySelectorAll(".step");
  }

  api.steps = {
    count: function (i) { return of(i).length; },
    show: function (i, k) {
      Array.prototype.forEach.call(of(i), function (li, j) {
        li.classList.toggle("is-shown", j < k);
      });
    }
  };
  // deck.js showed the first slide before this ran: show it again, fragments and all
  api.show(api.current(), true);
})();
