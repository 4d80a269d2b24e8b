// Adjudication keys. Queue: J/K move between rows, Enter opens. Page: J/K move between dimensions,
// 1/2 take rater 1's / 2's label for the focused dimension, Ctrl+Enter records.
(function () {
  "use strict";

  function typing(target) {
    if (!target) return false;
    var tag = target.tagName;
    return tag === "TEXTAREA" || (tag === "INPUT" && target.type !== "checkbox" && target.type !== "radio");
  }

  // --- queue ---------------------------------------------------------------------------------------
  var rows = Array.prototype.slice.call(document.querySelectorAll(".adj-row"));
  if (rows.length) {
    var current = -1;
    var mark = function (i) {
      current = Math.max(0, Math.min(rows.length - 1, i));
      rows.forEach(function (row, n) { row.classList.toggle("is-current", n === current); });
      var link = rows[current].querySelector("a.adj-open");
      if (link) link.focus();
    };
    document.addEventListener("keydown", function (event) {
      if (typing(event.target) || event.target.tagName === "SELECT" || event.ctrlKey || event.metaKey || event.altKey) return;
      var key = event.key.toLowerCase();
      if (key === "j") { event.preventDefault(); mark(current + 1); }
      else if (key === "k") { event.preventDefault(); mark(current - 1); }
      else if (key === "enter" && current >= 0 && document.activeElement === document.body) {
        window.location.href = rows[current].dataset.href;
      }
    });
  }

  // --- adjudication page ---------------------------------------------------------------------------
  var form = document.getElementById("adj-form");
  if (!form) return;
  var dims = Array.prototype.slice.call(form.querySelectorAll(".adj-dim"));

  function showDefinition(select) {
    var section = select.closest(".adj-dim");
    var out = section && section.querySelector(".adj-def");
    if (!out) return;
    var texts = Array.prototype.slice.call(select.selectedOptions)
      .map(function (option) { return option.dataset.definition || ""; })
      .filter(Boolean);
    out.textContent = texts.join(" · ");
  }

  function active() {
    var el = document.activeElement;
    return el ? el.closest(".adj-dim") : null;
  }

  function focusDim(i) {
    if (!dims.length) return;
    var n = Math.max(0, Math.min(dims.length - 1, i));
    dims.forEach(function (d, k) { d.classList.toggle("is-active", k === n); });
    dims[n].focus();
    dims[n].scrollIntoView({ block: "nearest" });
  }

  function take(section, rater) {
    var raw = section.getAttribute("data-rater-" + rater);
    if (raw === null) return;
    if (section.dataset.kind === "excluded") {
      var box = section.querySelector("input[name=excluded]");
      if (box) box.checked = raw === "1";
      return;
    }
    var ids = raw ? raw.split(",") : [];
    var select = section.querySelector("select");
    Array.prototype.forEach.call(select.options, function (option) {
      option.selected = ids.indexOf(option.value) !== -1 || (ids.length === 0 && option.value === "");
    });
    showDefinition(select);
    section.classList.add("taken");
  }

  form.querySelectorAll(".adj-dim select").forEach(function (select) {
    showDefinition(select);
    select.addEventListener("change", function () { showDefinition(select); });
  });

  document.addEventListener("keydown", function (event) {
    if ((event.ctrlKey || event.metaKey) && event.key === "Enter") {
      event.preventDefault();
      if (!form.querySelector("fieldset[disabled]")) form.requestSubmit();
      return;
    }
    if (typing(event.target) || event.ctrlKey || event.metaKey || event.altKey) return;
    var key = event.key.toLowerCase();
    var here = active();
    var index = here ? dims.indexOf(here) : -1;
    if (key === "j") { event.preventDefault(); focusDim(index + 1); }
    else if (key === "k") { event.preventDefault(); focusDim(index < 0 ? 0 : index - 1); }
    else if ((key === "1" || key === "2" || key === "3") && here) {
      event.preventDefault();
      take(here, key);
    }
  });

  // After a refusal the field at fault has the focus (the page keeps every choice made).
  var invalid = form.querySelector("[aria-invalid=true]");
  if (invalid) {
    var target = invalid.matches("fieldset") ? invalid.querySelector("input") : invalid;
    if (target) target.focus();
  } else if (dims.length && !document.querySelector("[role=alert]")) {
    dims[0].classList.add("is-active");
    dims[0].focus({ preventScroll: true });
  }
})();
