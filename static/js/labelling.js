// The labelling page: picker filtering, keyboard shortcuts, debounced autosave through the API,
// active-time tracking and conflict messages. The form works without this script (POST fallback).
(function () {
  "use strict";
  const form = document.getElementById("label-form");
  if (!form) return;

  const pickers = Array.from(form.querySelectorAll(".picker"));
  const statusEl = document.getElementById("save-status");
  const liveError = document.getElementById("live-error");
  const guidelines = document.getElementById("guidelines");
  const guidelinesToggle = document.getElementById("guidelines-toggle");
  const submitted = form.dataset.submitted === "true";
  const frozen = form.dataset.frozen === "true";
  const AUTOSAVE_DELAY_MS = 1500;
  const IDLE_AFTER_MS = 60000;

  let version = parseInt(form.dataset.version, 10);
  let activeSeconds = 0;
  let lastActivity = Date.now();
  let dirty = false;
  let saving = false;
  let blocked = false; // after a conflict nothing is saved until the page is reloaded
  let timer = null;
  let activePicker = pickers[0] || null;

  function csrfToken() {
    const input = form.querySelector("input[name=csrfmiddlewaretoken]");
    return input ? input.value : "";
  }

  function setStatus(text, isError) {
    if (!statusEl) return;
    statusEl.textContent = text;
    statusEl.classList.toggle("is-error", Boolean(isError));
  }

  function showError(message) {
    liveError.textContent = message;
    liveError.hidden = false;
    liveError.scrollIntoView({ block: "nearest" });
  }

  function clearError() {
    liveError.hidden = true;
    liveError.textContent = "";
  }

  // ---- active time: seconds with the page visible and the rater active in the last minute
  ["keydown", "mousedown", "mousemove", "scroll", "input", "touchstart"].forEach(function (name) {
    document.addEventListener(name, function () { lastActivity = Date.now(); }, { passive: true });
  });
  window.setInterval(function () {
    if (!document.hidden && Date.now() - lastActivity < IDLE_AFTER_MS) activeSeconds += 1;
  }, 1000);

  // ---- picker: filter, number hints, active picker
  function options(picker) {
    return Array.from(picker.querySelectorAll(".opt"));
  }

  function visibleChoices(picker) {
    return options(picker)
      .filter(function (li) { return !li.classList.contains("is-filtered-out"); })
      .map(function (li) { return li.querySelector("input"); })
      .filter(function (input) { return input && input.value !== ""; });
  }

  function renumber(picker) {
    picker.querySelectorAll(".key-hint").forEach(function (el) { el.textContent = ""; });
    visibleChoices(picker).slice(0, 9).forEach(function (input, i) {
      const hint = input.parentElement.querySelector(".key-hint");
      if (hint) hint.textContent = String(i + 1);
    });
  }

  function applyFilter(picker, text) {
    const words = text.toLowerCase().split(/\s+/).filter(Boolean);
    const items = options(picker);
    const byId = {};
    items.forEach(function (li) { if (li.dataset.id) byId[li.dataset.id] = li; });
    items.forEach(function (li) {
      const hay = li.dataset.search || "";
      const match = words.every(function (w) { return hay.indexOf(w) !== -1; });
      li.classList.toggle("is-filtered-out", words.length > 0 && !match);
    });
    // Keep the groups above a match visible, so the tree still reads as a tree.
    if (words.length) {
      items.forEach(function (li) {
        if (li.classList.contains("is-filtered-out")) return;
        let parent = byId[li.dataset.parent];
        while (parent) {
          parent.classList.remove("is-filtered-out");
          parent = byId[parent.dataset.parent];
        }
      });
    }
    renumber(picker);
  }

  function setActive(picker) {
    if (!picker) return;
    pickers.forEach(function (p) { p.classList.toggle("is-active", p === picker); });
    activePicker = picker;
  }

  function choose(picker, input) {
    if (!input || input.disabled) return;
    if (input.type === "checkbox") input.checked = !input.checked;
    else input.checked = true;
    input.focus();
    input.dispatchEvent(new Event("change", { bubbles: true }));
  }

  function focusNextPicker(picker) {
    const i = pickers.indexOf(picker);
    const next = pickers[i + 1];
    if (next) {
      setActive(next);
      next.querySelector(".picker-filter").focus();
    } else {
      const note = form.querySelector("textarea[name=note]");
      if (note) note.focus();
    }
  }

  pickers.forEach(function (picker) {
    const filter = picker.querySelector(".picker-filter");
    renumber(picker);
    picker.addEventListener("focusin", function () { setActive(picker); });
    filter.addEventListener("input", function () { applyFilter(picker, filter.value); });
    filter.addEventListener("keydown", function (event) {
      if (event.key === "Enter" && !event.ctrlKey && !event.metaKey) {
        event.preventDefault();
        const first = visibleChoices(picker)[0];
        if (first && filter.value.trim()) choose(picker, first);
        filter.value = "";
        applyFilter(picker, "");
        focusNextPicker(picker);
      } else if (event.key === "Escape") {
        filter.value = "";
        applyFilter(picker, "");
      } else if (event.key === "ArrowDown") {
        event.preventDefault();
        const checked = visibleChoices(picker).find(function (i) { return i.checked; });
        const target = checked || visibleChoices(picker)[0];
        if (target) target.focus();
      } else if (/^[1-9]$/.test(event.key) && event.altKey) {
        event.preventDefault();
        choose(picker, visibleChoices(picker)[parseInt(event.key, 10) - 1]);
      }
    });
    picker.addEventListener("keydown", function (event) {
      const target = event.target;
      if (target.matches(".opt input") && event.key === "Enter" && !event.ctrlKey && !event.metaKey) {
        // Enter confirms the choice and moves on, instead of submitting the form.
        event.preventDefault();
        if (target.type === "checkbox" && !target.checked) choose(picker, target);
        else if (target.type === "radio" && !target.checked) choose(picker, target);
        focusNextPicker(picker);
      }
    });
  });

  // ---- collecting the form as the API's JSON
  function payload() {
    const values = {};
    const proposals = {};
    pickers.forEach(function (picker) {
      const key = picker.dataset.dimension;
      const ids = Array.from(picker.querySelectorAll(".opt input:checked"))
        .map(function (i) { return i.value; })
        .filter(function (v) { return v !== ""; })
        .map(function (v) { return parseInt(v, 10); });
      if (ids.length) values[key] = ids;
      const proposal = picker.querySelector("input[name^=proposal_]").value.trim();
      if (proposal) proposals[key] = proposal;
    });
    const confidence = form.querySelector("input[name=confidence]:checked");
    const excluded = form.querySelector("input[name=excluded]").checked;
    return {
      values: values,
      proposals: proposals,
      note: form.querySelector("textarea[name=note]").value,
      excluded: excluded,
      excluded_reason: excluded ? form.querySelector("select[name=excluded_reason]").value : "",
      excluded_text: excluded ? form.querySelector("input[name=excluded_text]").value : "",
      confidence: confidence && confidence.value ? parseInt(confidence.value, 10) : null,
      elapsed_seconds: activeSeconds,
      version: version,
    };
  }

  function errorMessage(body, fallback) {
    if (body && body.error) {
      const fields = body.error.fields;
      if (fields && body.error.code !== "domain") {
        const first = Object.keys(fields)[0];
        if (first) return body.error.message + " (" + first + ": " + [].concat(fields[first]).join(" ") + ")";
      }
      return body.error.message;
    }
    return fallback;
  }

  function send(url, method, keepalive) {
    const body = payload();
    const sentSeconds = body.elapsed_seconds;
    return fetch(url, {
      method: method,
      credentials: "same-origin",
      keepalive: Boolean(keepalive),
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken(), Accept: "application/json" },
      body: JSON.stringify(body),
    }).then(function (response) {
      return response.json().catch(function () { return null; }).then(function (data) {
        if (response.ok) {
          version = data.version;
          form.dataset.version = String(version);
          form.querySelector("input[name=version]").value = String(version);
          activeSeconds = Math.max(0, activeSeconds - sentSeconds);
          clearError();
          return data;
        }
        if (response.status === 409) blocked = true;
        const message = errorMessage(data, "The server answered " + response.status + "; your changes are still on this page.");
        throw new Error(message);
      });
    });
  }

  function saveDraft(keepalive) {
    if (!dirty || saving || blocked || submitted || frozen) return Promise.resolve();
    saving = true;
    dirty = false;
    setStatus("Saving…");
    return send(form.dataset.draftUrl, "PUT", keepalive)
      .then(function () {
        setStatus("Draft saved " + new Date().toLocaleTimeString());
      })
      .catch(function (error) {
        dirty = true;
        setStatus("Not saved", true);
        showError(error.message);
      })
      .finally(function () { saving = false; });
  }

  function scheduleSave() {
    dirty = true;
    if (submitted) {
      setStatus("Changed — submit again to save this revision.");
      return;
    }
    window.clearTimeout(timer);
    timer = window.setTimeout(saveDraft, AUTOSAVE_DELAY_MS);
  }

  form.addEventListener("input", scheduleSave);
  form.addEventListener("change", scheduleSave);

  function submit() {
    if (frozen) return;
    if (blocked) {
      showError("This annotation was changed in another tab or window; reload to see the latest version.");
      return;
    }
    window.clearTimeout(timer);
    setStatus("Submitting…");
    send(form.dataset.submitUrl, "POST")
      .then(function () {
        dirty = false;
        window.location.assign(form.dataset.nextUrl);
      })
      .catch(function (error) {
        setStatus("Not submitted", true);
        showError(error.message);
      });
  }

  form.addEventListener("submit", function (event) {
    const action = event.submitter ? event.submitter.value : "submit";
    event.preventDefault();
    if (action === "draft") {
      dirty = true;
      saveDraft();
    } else {
      submit();
    }
  });

  // ---- page-wide keys
  function typing(target) {
    return target.matches("input[type=text], input[type=search], textarea, select, [contenteditable]");
  }

  function toggleGuidelines() {
    guidelines.open = !guidelines.open;
    guidelinesToggle.setAttribute("aria-expanded", String(guidelines.open));
    if (guidelines.open) guidelines.querySelector("summary").focus();
  }

  guidelinesToggle.addEventListener("click", function (event) {
    event.preventDefault();
    toggleGuidelines();
  });

  function go(linkId) {
    const link = document.getElementById(linkId);
    if (!link) return;
    saveDraft().then(function () { window.location.assign(link.href); });
  }

  document.addEventListener("keydown", function (event) {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      submit();
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
    if (event.key === "?" || event.key === "g") {
      event.preventDefault();
      toggleGuidelines();
    } else if (event.key === "j" || event.key === "J") {
      event.preventDefault();
      go("next-link");
    } else if (event.key === "k" || event.key === "K") {
      event.preventDefault();
      go("prev-link");
    } else if (event.key === "/") {
      event.preventDefault();
      if (activePicker) activePicker.querySelector(".picker-filter").focus();
    } else if (/^[1-9]$/.test(event.key) && activePicker) {
      event.preventDefault();
      choose(activePicker, visibleChoices(activePicker)[parseInt(event.key, 10) - 1]);
    }
  });

  // Unsaved changes go out with the page (keepalive lets the request outlive it).
  window.addEventListener("pagehide", function () { if (dirty) saveDraft(true); });
  if (submitted) setStatus("Submitted.");
  setActive(activePicker);
})();
