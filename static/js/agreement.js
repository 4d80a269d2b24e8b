// Agreement page: a click on a confusion-matrix count lists that cell's issues under the matrix
// (the link still works without script: it opens the cell's own page).
(function () {
  "use strict";
  document.addEventListener("click", function (event) {
    const link = event.target.closest("a[data-cell]");
    if (!link || event.metaKey || event.ctrlKey || event.shiftKey) return;
    const detail = link.closest("details");
    const target = detail && detail.querySelector("[data-cell-target]");
    if (!target) return;
    event.preventDefault();
    const url = new URL(link.href, window.location.href);
    url.searchParams.set("partial", "1");
    detail.querySelectorAll("a[data-cell].is-selected").forEach(function (a) { a.classList.remove("is-selected"); });
    link.classList.add("is-selected");
    target.textContent = "Loading…";
    fetch(url, { credentials: "same-origin", headers: { "X-Requested-With": "fetch" } })
      .then(function (response) {
        if (!response.ok) throw new Error("HTTP " + response.status);
        return response.text();
      })
      .then(function (html) {
        // The fragment is our own server-rendered, escaped template.
        const doc = new DOMParser().parseFromString(html, "text/html");
        target.replaceChildren.apply(target, Array.from(doc.body.childNodes));
      })
      .catch(function (error) {
        target.textContent = "Could not load the issues of this cell (" + error.message + "). Reload the page.";
      });
  });
})();
