// Study set-up: only the chosen taxonomy version's dimensions are offered; the sample form shows
// the size or the per-repository number depending on the stratification.
(function () {
  "use strict";
  const versions = document.getElementById("dimension-versions");
  const versionSelect = document.getElementById("id_taxonomy_version");
  const dimensionSelect = document.getElementById("id_dimensions");
  if (versions && versionSelect && dimensionSelect) {
    const map = JSON.parse(versions.textContent);
    const sync = function () {
      const chosen = versionSelect.value;
      Array.from(dimensionSelect.options).forEach(function (option) {
        const show = !chosen || String(map[option.value]) === chosen;
        option.hidden = !show;
        if (!show) option.selected = false;
      });
    };
    versionSelect.addEventListener("change", sync);
    sync();
  }

  // The frame's fields: only those of the chosen kind of frame are shown.
  const frameKind = document.getElementById("id_frame_kind");
  if (frameKind) {
    const syncFrame = function () {
      document.querySelectorAll("[data-frame]").forEach(function (part) {
        part.classList.toggle("is-hidden", part.dataset.frame !== frameKind.value);
      });
    };
    frameKind.addEventListener("change", syncFrame);
    syncFrame();
  }

  const overlapMode = document.getElementById("id_overlap_mode");
  const overlapValue = document.getElementById("overlap-value-field");
  if (overlapMode && overlapValue) {
    const syncOverlap = function () {
      overlapValue.classList.toggle("is-hidden", overlapMode.value === "all");
    };
    overlapMode.addEventListener("change", syncOverlap);
    syncOverlap();
  }

  const stratification = document.getElementById("id_stratification");
  const sizeField = document.getElementById("size-field");
  const perRepoField = document.getElementById("per-repository-field");
  if (stratification && sizeField && perRepoField) {
    const syncStrata = function () {
      const perRepo = stratification.value === "per_repository";
      sizeField.classList.toggle("is-hidden", perRepo);
      perRepoField.classList.toggle("is-hidden", !perRepo);
    };
    stratification.addEventListener("change", syncStrata);
    syncStrata();
  }
})();
