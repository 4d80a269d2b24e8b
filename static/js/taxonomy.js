// Filter the category trees of a taxonomy version by name, code or alias.
// Every typed word must start a word of the category ("hang" finds "hang and timeout",
// not "change hardware"). A match keeps its ancestors (for context) and its subtree visible.
(function () {
  "use strict";
  const input = document.getElementById("tx-filter");
  if (!input) return;
  const nodes = Array.from(document.querySelectorAll(".tx-node")).map((element) => ({
    element,
    words: (element.dataset.search || "").toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean),
  }));

  function matches(node, typed) {
    return typed.every((word) => node.words.some((w) => w.startsWith(word)));
  }

  function apply() {
    const typed = input.value.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
    if (typed.length === 0) {
      nodes.forEach((node) => node.element.classList.remove("tx-hidden"));
      return;
    }
    const visible = new Set();
    nodes.forEach((node) => {
      if (!matches(node, typed)) return;
      node.element.querySelectorAll(".tx-node").forEach((child) => visible.add(child));
      for (let up = node.element; up; up = up.parentElement.closest(".tx-node")) visible.add(up);
    });
    nodes.forEach((node) => node.element.classList.toggle("tx-hidden", !visible.has(node.element)));
  }

  input.addEventListener("input", apply);
  input.addEventListener("keydown", (event) => {
    if (event.key === "Escape") { input.value = ""; apply(); }
  });
})();
