// Import job page: poll the job's status while it runs, show progress, reload when it is done.
(function () {
  "use strict";
  const panel = document.getElementById("import-status");
  if (!panel || panel.dataset.active !== "true") return;
  const url = panel.dataset.statusUrl;
  const badge = panel.querySelector('[data-role="status"]');
  const bar = panel.querySelector('[data-role="progress"]');
  const text = panel.querySelector('[data-role="progress-text"]');
  let delay = 1000;

  function show(data) {
    if (badge) {
      badge.textContent = data.status_display;
      badge.className = "badge job-" + data.status;
    }
    if (bar && data.progress_total) {
      bar.max = data.progress_total;
      bar.value = data.progress_done;
    }
    if (text) {
      text.textContent = data.progress_done + (data.progress_total != null ? " of " + data.progress_total : "") +
        " records written";
    }
  }

  function poll() {
    fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then(function (response) {
        if (!response.ok) throw new Error("status " + response.status);
        return response.json();
      })
      .then(function (data) {
        show(data);
        if (data.active && !data.stale) {
          window.setTimeout(poll, delay);
        } else {
          window.location.reload(); // the finished page lists the summary and the problems
        }
      })
      .catch(function () {
        delay = Math.min(delay * 2, 30000); // back off while the server is unreachable
        window.setTimeout(poll, delay);
      });
  }
  window.setTimeout(poll, delay);
})();
