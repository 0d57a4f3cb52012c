// Boxes that scroll sideways (code, printed output, tables, wide figures on a phone) get the class
// sl-more-right / sl-more-left while more of their content is hidden on that side; book.css draws a
// shadow on that edge, so a reader sees that the box scrolls. Widgets draw after the page loads, so
// the check runs again when they appear, on every scroll of such a box, and when the window resizes.
(function () {
  "use strict";
  var SELECTOR = [
    "div.cell_output .output", "div.highlight pre", ".pst-scrollable-table-container", ".sl-table-wrap",
    ".sl-figure", ".sl-stack", ".scalinglib-html-frame", "mjx-container[display='true']", "div.math",
    "span.sl-wide-math"
  ].join(",");

  // Every box is measured first and marked after: a measurement taken between two marks would make the
  // browser lay the page out again for each box.
  function measure(box) {
    var hidden = box.scrollWidth - box.clientWidth;
    return { box: box, more: hidden > 1, left: box.scrollLeft > 1, right: box.scrollLeft < hidden - 1 };
  }

  function mark(m) {
    m.box.classList.toggle("sl-more-left", m.more && m.left);
    m.box.classList.toggle("sl-more-right", m.more && m.right);
    // reachable by keyboard, so the arrow keys scroll it (the theme does the same for some boxes, 0.3 s
    // after a resize; this one is at once)
    if (m.more && m.box.getAttribute("tabindex") !== "0") {
      m.box.setAttribute("tabindex", "0");
    }
  }

  function update(box) {
    mark(measure(box));
  }

  // Inline math wider than its line (MathJax 3 does not break lines) becomes a block that scrolls.
  function widenMath() {
    var wide = [];
    document.querySelectorAll(".bd-content span.math > mjx-container:not([display='true'])").forEach(function (mj) {
      var span = mj.parentElement;
      var room = span.parentElement ? span.parentElement.clientWidth : 0;
      if (room && mj.getBoundingClientRect().width > room) {
        wide.push(span);
      }
    });
    wide.forEach(function (span) { span.classList.add("sl-wide-math"); });
  }

  function updateAll() {
    widenMath();
    var boxes = Array.prototype.slice.call(document.querySelectorAll(SELECTOR));
    boxes.map(measure).forEach(mark);
  }

  var pending = false;
  function soon() {
    if (!pending) {
      pending = true;
      window.requestAnimationFrame(function () { pending = false; updateAll(); });
    }
  }

  document.addEventListener("scroll", function (event) {
    var box = event.target;
    if (box && box.matches && box.matches(SELECTOR)) { update(box); }
  }, true);
  window.addEventListener("resize", soon);
  window.addEventListener("load", function () {
    updateAll();
    var main = document.querySelector("main") || document.body;
    new MutationObserver(soon).observe(main, { childList: true, subtree: true });
  });
  document.addEventListener("DOMContentLoaded", updateAll);
})();
