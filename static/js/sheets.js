// Spreadsheet import, review step: tick or untick every merge suggestion at once.
(function () {
  "use strict";
  document.querySelectorAll("[data-sheets-toggle]").forEach(function (button) {
    button.addEventListener("click", function () {
      var on = button.getAttribute("data-sheets-toggle") === "on";
      document.querySelectorAll(".sheets-suggestions input[type=checkbox]").forEach(function (box) {
        box.checked = on;
      });
    });
  });
})();
