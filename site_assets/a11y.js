// Accessibility repairs of markup the book does not write itself (the theme, docutils, the widget library),
// loaded on every page (html_js_files in _config.yml). Each repair is one function below; together they
// bring axe-core's WCAG 2.1 A/AA checks to zero on every page (tests/test_a11y.py).
(function () {
  "use strict";

  // The theme's search button says "Search" to assistive technology while showing "Search Ctrl+K": a
  // speech-input user saying what they see would not match its name (WCAG 2.5.3, label in name). Its
  // name is taken from what it shows instead, and the shortcut is announced as a shortcut.
  function searchButton(root) {
    root.querySelectorAll("button.search-button-field[aria-label]").forEach(function (button) {
      button.removeAttribute("aria-label");
      button.setAttribute("aria-keyshortcuts", "Control+K");
    });
  }

  // sphinx-togglebutton's buttons say "Toggle hidden content" to assistive technology while showing their hint
  // ("Click to show", "Click to hide", drawn from data-toggle-hint): the name follows the hint shown, and
  // aria-expanded, which the script keeps, says whether the content is open.
  // myst-nb's folded code cells do the same with their <summary> ("Toggle hidden content" over "Show code"):
  // without the label, the summary is named by the line it shows ("Show code", or "Hide code" once open).
  function toggleButtons(root) {
    root.querySelectorAll('summary[aria-label="Toggle hidden content"]').forEach(function (summary) {
      if (summary.textContent.trim()) { summary.removeAttribute("aria-label"); }
    });
    root.querySelectorAll("button.toggle-button[data-toggle-hint]").forEach(function (button) {
      var hint = button.getAttribute("data-toggle-hint").trim();
      if (hint && button.getAttribute("aria-label") !== hint) { button.setAttribute("aria-label", hint); }
    });
  }

  // docutils marks each bibliography entry with the DPUB role doc-biblioentry, which ARIA 1.2 deprecates,
  // inside a role="list" container, which then has no list items. Each entry becomes a list item.
  function citationList(root) {
    root.querySelectorAll('[role="doc-biblioentry"], [role="doc-endnote"]').forEach(function (entry) {
      entry.setAttribute("role", "listitem");
    });
  }

  // The widget library's slider handles (noUiSlider, role="slider") carry no name: a screen reader would
  // announce "slider, 4" with nothing to say what moves. Each handle is named by the label the slider shows
  // beside it (its description), or, without one, by the figure panel's own label.
  var labelCount = 0;
  function sliderHandles(root) {
    root.querySelectorAll(".noUi-handle[role='slider']:not([aria-labelledby]):not([aria-label])").forEach(function (handle) {
      var control = handle.closest(".widget-slider, .jupyter-widgets");
      var label = control && control.querySelector(".widget-label");
      if (label && label.textContent.trim()) {
        if (!label.id) { label.id = "sl-slider-label-" + (++labelCount); }
        handle.setAttribute("aria-labelledby", label.id);
      } else {
        var panel = handle.closest("[aria-label]");
        handle.setAttribute("aria-label", panel ? panel.getAttribute("aria-label") : "slider");
      }
    });
  }

  function repair(root) {
    searchButton(root);
    toggleButtons(root);
    citationList(root);
    sliderHandles(root);
  }

  // Widgets are drawn after the page loads, and redrawn; each new piece is repaired as it appears.
  var pending = false;
  function soon() {
    if (!pending) {
      pending = true;
      window.requestAnimationFrame(function () { pending = false; repair(document); });
    }
  }

  function start() {
    repair(document);
    new MutationObserver(soon).observe(document.body, {
      childList: true, subtree: true, attributes: true, attributeFilter: ["data-toggle-hint"]
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
