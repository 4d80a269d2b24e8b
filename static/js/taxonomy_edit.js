// Taxonomy editor: show only the fields the chosen operation uses, and name the ticked categories.
(function () {
  "use strict";
  const op = document.getElementById("edit-op");
  if (!op) return;
  const form = document.getElementById("edit-form");
  const picked = document.getElementById("edit-picked");
  const boxes = Array.from(document.querySelectorAll("input[name=categories][form=edit-form]"));

  function refresh() {
    form.querySelectorAll("[data-ops]").forEach(function (field) {
      field.hidden = field.dataset.ops.split(" ").indexOf(op.value) < 0;
    });
    const names = boxes.filter(function (b) { return b.checked; }).map(function (b) { return b.dataset.name; });
    picked.textContent = op.value === "add" ? "" : (names.length ? "Ticked: " + names.join(", ") : "Tick a category on the left.");
  }

  op.addEventListener("change", refresh);
  boxes.forEach(function (box) { box.addEventListener("change", refresh); });
  refresh();
})();
