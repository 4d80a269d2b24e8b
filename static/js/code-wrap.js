// Long log lines in issue text: by default a code block keeps them and scrolls sideways; this toggle wraps
// them instead, on every page, as the reader last chose (kept in localStorage). Without the script the
// toggle stays hidden and the blocks scroll.
(function () {
  "use strict";
  const KEY = "taxonomist.wrapCode";
  const toggles = Array.from(document.querySelectorAll("[data-code-wrap]"));
  if (toggles.length === 0 || !document.querySelector(".md pre")) return;

  function remembered() {
    try {
      return window.localStorage.getItem(KEY) === "wrap";
    } catch (error) {
      return false; // storage refused (private mode, policy): the page still toggles, it just forgets
    }
  }

  function apply(wrap) {
    document.body.classList.toggle("wrap-code", wrap);
    for (const toggle of toggles) toggle.setAttribute("aria-pressed", wrap ? "true" : "false");
  }

  apply(remembered());
  for (const toggle of toggles) {
    toggle.hidden = false;
    toggle.addEventListener("click", function () {
      const wrap = !document.body.classList.contains("wrap-code");
      apply(wrap);
      try {
        window.localStorage.setItem(KEY, wrap ? "wrap" : "scroll");
      } catch (error) {
        // not remembered; the choice holds on this page
      }
    });
  }
})();
