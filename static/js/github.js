// Live progress of a GitHub import: polls the job's status URL while the job is active and
// fills the [data-field] / [data-count] elements. Does nothing on pages without [data-github-job].
(function () {
  "use strict";

  const panel = document.querySelector("[data-github-job]");
  if (!panel) return;
  const url = panel.dataset.statusUrl;
  const initial = document.getElementById("github-job-status");
  const INTERVAL_MS = 2000;

  function setText(selector, text) {
    const element = panel.querySelector(selector);
    if (element) element.textContent = text;
  }

  function render(status) {
    setText("[data-field='status_label']", status.status_label);
    setText("[data-field='phase']", status.phase || "");
    setText("[data-field='progress_done']", String(status.progress_done));
    setText("[data-field='duration']", status.duration || "—");
    setText("[data-field='error']", status.error || "");
    setText("[data-field='resume_at']", status.resume_at
      ? "Waiting for GitHub's rate limit until " + new Date(status.resume_at).toLocaleString() + "."
      : "");
    const bar = panel.querySelector("[data-field='progress']");
    if (bar) {
      bar.max = status.progress_total || Math.max(1, status.progress_done);
      bar.value = status.progress_done;
    }
    panel.querySelectorAll("[data-count]").forEach(function (element) {
      const names = element.dataset.count.split(",");
      element.textContent = names.map(function (name) {
        const value = status.counts[name];
        return value === undefined || value === null ? (name === "rate_limit_remaining" ? "?" : "0") : String(value);
      }).join(" / ");
    });
  }

  function poll() {
    fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then(function (response) { return response.ok ? response.json() : Promise.reject(response.status); })
      .then(function (status) {
        render(status);
        if (status.active && !status.stale) window.setTimeout(poll, INTERVAL_MS);
      })
      .catch(function () { window.setTimeout(poll, INTERVAL_MS * 5); });
  }

  const status = initial ? JSON.parse(initial.textContent) : { active: true };
  if (status.active && !status.stale) window.setTimeout(poll, INTERVAL_MS);
})();
