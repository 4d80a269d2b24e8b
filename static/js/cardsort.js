// Card-sorting board: mouse (click to select, drag onto a category) and keyboard (arrows, Space, M, N, R).
// Every decision is posted to the server at once; the page then reloads, so the board resumes where it was.
(function () {
  "use strict";
  const board = document.querySelector(".cs-board");
  if (!board) return;
  const status = document.querySelector(".cs-status");

  function say(text) { if (status) status.textContent = text; }

  function columnOf(el) { return el.closest(".cs-column"); }
  function selected(column) { return Array.from(column.querySelectorAll(".cs-card[aria-selected='true']")); }

  function setSelected(card, on) {
    card.setAttribute("aria-selected", on ? "true" : "false");
    card.querySelector("input[type=checkbox]").checked = on;
  }

  function toggle(card) { setSelected(card, card.getAttribute("aria-selected") !== "true"); }

  async function decide(column, action, extra) {
    const cards = selected(column);
    if (!cards.length) { say("Select at least one proposal card first."); return; }
    const form = column.querySelector(".cs-form");
    const data = new FormData();
    data.append("csrfmiddlewaretoken", form.querySelector("[name=csrfmiddlewaretoken]").value);
    data.append("dimension", column.dataset.dimension);
    data.append("action", action);
    cards.forEach(function (card) { data.append("proposal", card.dataset.proposal); });
    Object.keys(extra || {}).forEach(function (key) { data.append(key, extra[key]); });
    // getAttribute: the form has buttons named "action", which shadow form.action.
    const response = await fetch(form.getAttribute("action"), { method: "POST", body: data, headers: { Accept: "application/json" } });
    const body = await response.json().catch(function () { return {}; });
    if (!response.ok) { say((body.error && body.error.message) || "Not saved; reload the page."); return; }
    say(body.message || "Saved.");
    window.location.reload();
  }

  function focusables(column) { return Array.from(column.querySelectorAll(".cs-card, .cs-category")); }

  board.addEventListener("click", function (event) {
    const card = event.target.closest(".cs-card");
    if (card && !event.target.closest("a")) {
      event.preventDefault();
      toggle(card);
      card.focus();
    }
    const category = event.target.closest(".cs-category");
    if (category) {
      category.querySelector("input[type=radio]").checked = true;
    }
  });

  board.addEventListener("keydown", function (event) {
    const column = columnOf(event.target);
    if (!column || event.target.matches("input[type=text]")) {
      if (event.key === "Enter" && event.target.matches(".cs-name")) {
        event.preventDefault();
        decide(column, "new", { name: event.target.value });
      } else if (event.key === "Enter" && event.target.matches(".cs-reason")) {
        event.preventDefault();
        decide(column, "reject", { reason: event.target.value });
      }
      return;
    }
    const items = focusables(column);
    const index = items.indexOf(event.target);
    const key = event.key;
    if (key === "ArrowDown" || key === "ArrowUp") {
      event.preventDefault();
      const next = items[Math.max(0, Math.min(items.length - 1, index + (key === "ArrowDown" ? 1 : -1)))];
      if (next) next.focus();
    } else if (key === " " && event.target.matches(".cs-card")) {
      event.preventDefault();
      toggle(event.target);
    } else if ((key === "m" || key === "M") && event.target.matches(".cs-category")) {
      event.preventDefault();
      decide(column, "alias", { target: event.target.dataset.target });
    } else if (key === "n" || key === "N") {
      event.preventDefault();
      const input = column.querySelector(".cs-name");
      input.focus();
      say("Name the new category and press Enter.");
    } else if (key === "r" || key === "R") {
      event.preventDefault();
      column.querySelector(".cs-reason").focus();
      say("Say why and press Enter.");
    }
  });

  board.addEventListener("dragstart", function (event) {
    const card = event.target.closest(".cs-card");
    if (!card) return;
    if (card.getAttribute("aria-selected") !== "true") {
      selected(columnOf(card)).forEach(function (c) { setSelected(c, false); });
      setSelected(card, true);
    }
    event.dataTransfer.setData("text/plain", card.dataset.proposal);
    event.dataTransfer.effectAllowed = "move";
  });

  board.addEventListener("dragover", function (event) {
    const category = event.target.closest(".cs-category");
    if (category) { event.preventDefault(); category.classList.add("cs-over"); }
  });

  board.addEventListener("dragleave", function (event) {
    const category = event.target.closest(".cs-category");
    if (category) category.classList.remove("cs-over");
  });

  board.addEventListener("drop", function (event) {
    const category = event.target.closest(".cs-category");
    if (!category) return;
    event.preventDefault();
    category.classList.remove("cs-over");
    decide(columnOf(category), "alias", { target: category.dataset.target });
  });
})();
