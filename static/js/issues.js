// Issue list keyboard shortcuts: j/k move between rows, Enter (or o) opens, / focuses search.
// Rows carry their link in data-href; nothing here runs on pages without [data-issue-list].
(function () {
  "use strict";

  const table = document.querySelector("[data-issue-list]");
  const search = document.querySelector("[data-shortcut='/']");
  const rows = table ? Array.from(table.querySelectorAll("tbody tr[data-href]")) : [];
  let current = -1;

  function typingIn(target) {
    if (!target) return false;
    const tag = target.tagName;
    return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || target.isContentEditable;
  }

  function select(index) {
    if (!rows.length) return;
    const next = Math.max(0, Math.min(rows.length - 1, index));
    if (current >= 0) rows[current].classList.remove("is-current");
    current = next;
    const row = rows[current];
    row.classList.add("is-current");
    row.scrollIntoView({ block: "nearest" });
    const link = row.querySelector("a.issue-title");
    if (link) link.focus({ preventScroll: true });
  }

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (typingIn(event.target)) {
      if (event.key === "Escape" && event.target === search) search.blur();
      return;
    }
    switch (event.key) {
      case "/":
        if (search) {
          event.preventDefault();
          search.focus();
          search.select();
        }
        break;
      case "j":
        event.preventDefault();
        select(current + 1);
        break;
      case "k":
        event.preventDefault();
        select(current < 0 ? 0 : current - 1);
        break;
      case "Enter":
      case "o":
        if (current >= 0 && event.target === document.body) {
          event.preventDefault();
          window.location.assign(rows[current].dataset.href);
        }
        break;
      default:
        break;
    }
  });

  // A click anywhere on a row (not only on the title) opens the issue; links keep their own behaviour.
  rows.forEach(function (row, index) {
    row.addEventListener("click", function (event) {
      if (event.target.closest("a, button, input, select, label")) return;
      if (window.getSelection && String(window.getSelection())) return;
      window.location.assign(row.dataset.href);
    });
    row.addEventListener("focusin", function () {
      if (current >= 0 && current !== index) rows[current].classList.remove("is-current");
      current = index;
      row.classList.add("is-current");
    });
  });
})();
