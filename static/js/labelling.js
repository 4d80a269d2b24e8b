// The labelling page: the keys of annotator/labelling_keys.py (the table the page's help and the README
// show), type-ahead filtering of the pickers, debounced autosave through the API, active-time tracking and
// error messages. The form works without this script (POST fallback).
(function () {
  "use strict";
  const form = document.getElementById("label-form");
  if (!form) return;

  const pickers = Array.from(form.querySelectorAll(".picker"));
  const statusEl = document.getElementById("save-status");
  const liveError = document.getElementById("live-error");
  const guidelines = document.getElementById("guidelines");
  const guidelinesToggle = document.getElementById("guidelines-toggle");
  const note = form.querySelector("textarea[name=note]");
  const submitted = form.dataset.submitted === "true";
  const frozen = form.dataset.frozen === "true";
  const AUTOSAVE_DELAY_MS = 1500;
  const IDLE_AFTER_MS = 60000;
  const DEFINITIONS_KEY = "taxonomist.labelling.definitions";

  let version = parseInt(form.dataset.version, 10);
  let activeSeconds = 0;
  let lastActivity = Date.now();
  let dirty = false;
  let inflight = null; // the draft save on its way, if any: nothing else is sent until it has answered
  let submitting = false;
  let blocked = false; // after a conflict nothing is saved until the page is reloaded
  let timer = null;
  let activePicker = pickers[0] || null;
  let helpReturnFocus = null;
  const highlights = new Map(); // picker -> the highlighted option's input (what Enter chooses)

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

  // ---- pickers: filter, numbers, highlight
  function filterOf(picker) { return picker.querySelector(".picker-filter"); }
  function isMulti(picker) { return picker.dataset.multi === "true"; }
  function categoryItems(picker) { return Array.from(picker.querySelectorAll(".opt[data-id]")); }
  function words(text) { return text.toLowerCase().split(/\s+/).filter(Boolean); }
  function optionName(input) {
    const name = input.closest("label").querySelector(".opt-name");
    return name.dataset.text !== undefined ? name.dataset.text : name.textContent;
  }

  function visibleChoices(picker) {
    // In the order the rater sees them: matches by name (or alias) first, then those found in a definition.
    const shown = categoryItems(picker).filter(function (li) {
      return !li.classList.contains("is-filtered-out") && !li.classList.contains("is-context");
    });
    const byName = shown.filter(function (li) { return !li.classList.contains("match-def"); });
    const byDefinition = shown.filter(function (li) { return li.classList.contains("match-def"); });
    return byName.concat(byDefinition)
      .map(function (li) { return li.querySelector("label > input"); })
      .filter(Boolean);
  }

  function renumber(picker) {
    picker.querySelectorAll(".key-hint").forEach(function (el) { el.textContent = ""; });
    visibleChoices(picker).slice(0, 9).forEach(function (input, i) {
      const hint = input.parentElement.querySelector(".key-hint");
      if (hint) hint.textContent = String(i + 1);
    });
  }

  // Wraps what the rater typed in <mark>, built from text nodes only (names come from a taxonomy file).
  function mark(el, found) {
    if (!el) return;
    if (el.dataset.text === undefined) el.dataset.text = el.textContent;
    const text = el.dataset.text;
    const lower = text.toLowerCase();
    const ranges = [];
    if (lower.length === text.length) {
      found.forEach(function (w) {
        for (let i = lower.indexOf(w); i !== -1; i = lower.indexOf(w, i + w.length)) ranges.push([i, i + w.length]);
      });
    }
    el.textContent = "";
    if (!ranges.length) { el.textContent = text; return; }
    ranges.sort(function (a, b) { return a[0] - b[0]; });
    let pos = 0;
    ranges.forEach(function (range) {
      const start = Math.max(range[0], pos);
      if (range[1] <= start) return;
      if (start > pos) el.append(text.slice(pos, start));
      const m = document.createElement("mark");
      m.textContent = text.slice(start, range[1]);
      el.append(m);
      pos = range[1];
    });
    if (pos < text.length) el.append(text.slice(pos));
  }

  function applyFilter(picker, text) {
    const typed = words(text);
    const items = categoryItems(picker);
    const byId = {};
    items.forEach(function (li) { byId[li.dataset.id] = li; });
    let fromDefinitions = 0;
    items.forEach(function (li) {
      const names = li.dataset.names || "";
      const everything = names + " " + (li.dataset.definition || "");
      const byName = typed.every(function (w) { return names.indexOf(w) !== -1; });
      const byDefinition = !byName && typed.every(function (w) { return everything.indexOf(w) !== -1; });
      li.classList.toggle("is-filtered-out", typed.length > 0 && !byName && !byDefinition);
      li.classList.toggle("match-def", typed.length > 0 && byDefinition);
      li.classList.remove("is-context");
      if (byDefinition && li.querySelector("label > input")) fromDefinitions += 1;
    });
    // Keep the groups above a match visible, so the tree still reads as a tree; name matches go first, so a
    // group shared by both kinds of match stays with the name matches.
    if (typed.length) {
      const hits = items.filter(function (li) { return !li.classList.contains("is-filtered-out"); });
      hits.sort(function (a, b) { return a.classList.contains("match-def") - b.classList.contains("match-def"); });
      hits.forEach(function (li) {
        const inDefinitions = li.classList.contains("match-def");
        for (let p = byId[li.dataset.parent]; p && p.classList.contains("is-filtered-out"); p = byId[p.dataset.parent]) {
          p.classList.remove("is-filtered-out");
          p.classList.add("is-context");
          p.classList.toggle("match-def", inDefinitions);
        }
      });
    }
    items.forEach(function (li) {
      const shown = typed.length && !li.classList.contains("is-filtered-out") ? typed : [];
      mark(li.querySelector(".opt-name, .group-name"), shown);
      mark(li.querySelector(".opt-def"), li.classList.contains("match-def") ? shown : []);
      const name = (li.querySelector(".opt-name, .group-name") || li).textContent.toLowerCase();
      li.querySelectorAll(".opt-alias").forEach(function (alias) {
        const spelled = alias.textContent.toLowerCase();
        alias.hidden = !shown.some(function (w) { return spelled.indexOf(w) !== -1 && name.indexOf(w) === -1; });
      });
    });
    const none = picker.querySelector(".opt-none");
    if (none) none.classList.toggle("is-filtered-out", typed.length > 0);
    const separator = picker.querySelector(".opt-sep");
    if (separator) separator.hidden = !(typed.length && fromDefinitions);
    renumber(picker);
    setHighlight(picker, typed.length ? visibleChoices(picker)[0] : null);
  }

  function describe(picker, message, isError) {
    const out = picker.querySelector(".picker-status");
    if (!out) return;
    if (message === undefined) {
      const typed = filterOf(picker).value.trim();
      const target = highlights.get(picker);
      if (target) {
        const verb = isMulti(picker) ? (target.checked ? "removes" : "adds") : "chooses";
        message = "Enter " + verb + ": " + optionName(target);
      } else if (typed) {
        message = "No category matches “" + typed + "”. Esc clears it; then P proposes a new one.";
      } else {
        message = "";
      }
    }
    out.textContent = message;
    out.classList.toggle("is-error", Boolean(isError));
  }

  function setHighlight(picker, input) {
    picker.querySelectorAll(".opt.is-highlighted").forEach(function (li) { li.classList.remove("is-highlighted"); });
    highlights.set(picker, input || null);
    if (input) {
      const li = input.closest(".opt");
      li.classList.add("is-highlighted");
      li.scrollIntoView({ block: "nearest" });
    }
    describe(picker);
  }

  function moveHighlight(picker, step) {
    const choices = visibleChoices(picker);
    if (!choices.length) return;
    const current = highlights.get(picker);
    let i = choices.indexOf(current);
    if (i === -1) {
      const checked = choices.findIndex(function (c) { return c.checked; });
      i = checked !== -1 ? checked : (step > 0 ? 0 : choices.length - 1);
    } else {
      i = Math.max(0, Math.min(choices.length - 1, i + step));
    }
    setHighlight(picker, choices[i]);
  }

  function resetFilter(picker) {
    const filter = filterOf(picker);
    if (filter.value) {
      filter.value = "";
      applyFilter(picker, "");
    } else if (highlights.get(picker)) {
      setHighlight(picker, null);
    }
  }

  function setActive(picker) {
    if (!picker) return;
    pickers.forEach(function (p) { p.classList.toggle("is-active", p === picker); });
    activePicker = picker;
  }

  function enterPicker(picker, focusOptions) {
    setActive(picker);
    filterOf(picker).focus(focusOptions);
  }

  // Leaving a dimension resets its filter; past the last one comes the note.
  function moveFrom(picker, step) {
    const next = pickers[pickers.indexOf(picker) + step];
    if (!next && step < 0) return false;
    resetFilter(picker);
    if (next) enterPicker(next);
    else if (note) note.focus();
    return true;
  }

  function changed(input) {
    input.dispatchEvent(new Event("change", { bubbles: true }));
  }

  // Choose (or, where several are allowed, add or remove) one category; says what happened.
  function pick(picker, input) {
    if (!input || input.disabled) return;
    const name = optionName(input);
    if (input.type === "checkbox") {
      input.checked = !input.checked;
      changed(input);
    } else if (!input.checked) {
      input.checked = true;
      changed(input);
    }
    resetFilter(picker);
    if (!isMulti(picker)) describe(picker, "Chosen: " + name);
    else describe(picker, (input.checked ? "Added: " : "Removed: ") + name + ". Enter with nothing typed goes on.");
  }

  function clearDimension(picker) {
    let cleared = false;
    picker.querySelectorAll(".opt input:checked").forEach(function (input) {
      if (input.value === "") return;
      input.checked = false;
      cleared = true;
    });
    const none = picker.querySelector(".opt-none input");
    if (none) none.checked = true;
    resetFilter(picker);
    if (cleared) changed(none || picker.querySelector(".opt input"));
    describe(picker, "No category chosen.");
  }

  function digit(picker, key) {
    if (key === "0") {
      clearDimension(picker);
      return;
    }
    const input = visibleChoices(picker)[parseInt(key, 10) - 1];
    if (input) pick(picker, input);
    else describe(picker, "No category is numbered " + key + " here.", true);
  }

  function confirm(picker) {
    const target = highlights.get(picker);
    if (target) {
      pick(picker, target);
      if (!isMulti(picker)) moveFrom(picker, 1);
    } else if (filterOf(picker).value.trim()) {
      describe(picker, "No category matches “" + filterOf(picker).value.trim() + "”: nothing chosen. "
        + "Esc clears it; then P proposes a new one.", true);
    } else {
      moveFrom(picker, 1);
    }
  }

  // ---- "None fits": the proposal box, opened with P (or its button), kept open while it holds text
  function proposalBox(picker) { return picker.querySelector(".proposal"); }
  function proposalInput(picker) { return picker.querySelector("input[name^=proposal_]"); }

  function showProposal(picker, open) {
    proposalBox(picker).hidden = !open;
    picker.querySelector(".propose-open").hidden = open;
  }

  function openProposal(picker) {
    setActive(picker);
    resetFilter(picker);
    showProposal(picker, true);
    proposalInput(picker).focus();
  }

  function closeProposalIfEmpty(picker) {
    if (!proposalInput(picker).value.trim()) showProposal(picker, false);
  }

  pickers.forEach(function (picker) {
    const filter = filterOf(picker);
    const proposal = proposalInput(picker);
    renumber(picker);
    if (!frozen) showProposal(picker, Boolean(proposal.value.trim()));
    picker.querySelector(".propose-open").addEventListener("click", function () { openProposal(picker); });
    picker.addEventListener("focusin", function () { setActive(picker); });
    picker.addEventListener("change", function () {
      picker.classList.remove("is-invalid");
      filter.removeAttribute("aria-invalid");
    });
    filter.addEventListener("input", function () { applyFilter(picker, filter.value); });
    filter.addEventListener("keydown", function (event) {
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      if (event.key === "Enter") {
        event.preventDefault();
        confirm(picker);
      } else if (/^[0-9]$/.test(event.key)) {
        event.preventDefault(); // digits choose, even in the filter
        digit(picker, event.key);
      } else if (event.key === "ArrowDown" || event.key === "ArrowUp") {
        event.preventDefault();
        moveHighlight(picker, event.key === "ArrowDown" ? 1 : -1);
      } else if (event.key === "Escape") {
        event.preventDefault();
        if (filter.value) resetFilter(picker);
        else {
          setHighlight(picker, null);
          picker.focus();
        }
      } else if (event.key === "?") {
        event.preventDefault();
        toggleHelp();
      }
    });
    proposal.addEventListener("keydown", function (event) {
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      if (event.key === "Enter") {
        event.preventDefault(); // keeps the text (autosave sends it) instead of submitting the form
        closeProposalIfEmpty(picker);
        if (proposal.value.trim()) describe(picker, "Proposed: " + proposal.value.trim());
        moveFrom(picker, 1);
      } else if (event.key === "Escape") {
        event.preventDefault();
        closeProposalIfEmpty(picker);
        enterPicker(picker);
      }
    });
    picker.addEventListener("keydown", function (event) {
      if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
      const target = event.target;
      if (event.key === "Tab") {
        // Tab moves between dimensions, never into this dimension's options or proposal box.
        if (target === proposal) {
          closeProposalIfEmpty(picker);
          if (event.shiftKey) {
            event.preventDefault();
            enterPicker(picker);
            return;
          }
        }
        if (moveFrom(picker, event.shiftKey ? -1 : 1)) event.preventDefault();
      } else if (event.key === "Enter" && (target === picker || target.matches(".opt input"))) {
        event.preventDefault();
        if (target.matches(".opt input[type=radio]") && !target.checked) pick(picker, target);
        moveFrom(picker, 1);
      }
    });
  });

  // ---- compact pickers: definitions on hover and highlight, unless the rater wants every one
  const tools = document.getElementById("label-tools");
  const allDefinitions = document.getElementById("definitions-all");
  function showAllDefinitions(on) {
    form.classList.toggle("is-compact", !on);
    allDefinitions.checked = on;
    try { window.localStorage.setItem(DEFINITIONS_KEY, on ? "all" : "compact"); } catch (e) { /* private mode */ }
  }
  if (tools && allDefinitions) {
    let stored = null;
    try { stored = window.localStorage.getItem(DEFINITIONS_KEY); } catch (e) { stored = null; }
    showAllDefinitions(stored === "all");
    tools.hidden = false;
    allDefinitions.addEventListener("change", function () { showAllDefinitions(allDefinitions.checked); });
  }

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
      const proposal = proposalInput(picker).value.trim();
      if (proposal) proposals[key] = proposal;
    });
    const confidence = form.querySelector("input[name=confidence]:checked");
    const excluded = form.querySelector("input[name=excluded]").checked;
    return {
      values: values,
      proposals: proposals,
      note: note.value,
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

  // A refusal about the labels names its dimensions: those pickers are marked, and after a submit the first
  // gets the focus (an autosave never moves it: the rater may be typing elsewhere).
  function markDimensions(body, focus) {
    pickers.forEach(function (picker) {
      picker.classList.remove("is-invalid");
      filterOf(picker).removeAttribute("aria-invalid");
    });
    const error = body && body.error;
    const fields = (error && error.fields) || {};
    if (!error || !(fields.values || fields.proposals)) return;
    const named = pickers.filter(function (picker) {
      return fields[picker.dataset.dimension] || error.message.indexOf(picker.dataset.name) !== -1;
    });
    named.forEach(function (picker) {
      picker.classList.add("is-invalid");
      filterOf(picker).setAttribute("aria-invalid", "true");
      describe(picker, error.message, true);
    });
    if (named.length && focus) enterPicker(named[0], { preventScroll: false });
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
          markDimensions(null);
          return data;
        }
        if (response.status === 409) blocked = true;
        const error = new Error(errorMessage(data, "The server answered " + response.status + "; your changes are still on this page."));
        error.body = data;
        error.status = response.status;
        error.retryAfter = parseInt(response.headers.get("Retry-After") || "", 10);
        throw error;
      });
    });
  }

  // Resolves true when nothing is left unsaved. One save at a time: a change made while one is on its way
  // goes out after it, with the version it answered.
  function saveDraft(keepalive) {
    if (inflight) return inflight.then(function () { return saveDraft(keepalive); });
    if (!dirty || blocked || submitted || frozen) return Promise.resolve(!dirty || submitted || frozen);
    dirty = false;
    setStatus("Saving…");
    inflight = send(form.dataset.draftUrl, "PUT", keepalive)
      .then(function () {
        setStatus("Draft saved " + new Date().toLocaleTimeString());
        return true;
      })
      .catch(function (error) {
        dirty = true;
        showError(error.message);
        markDimensions(error.body);
        if (error.status === 503) {
          // The database was busy or unreachable and nothing was saved: try again by itself, as the answer says.
          const seconds = Math.min(Math.max(error.retryAfter || 5, 1), 60);
          setStatus("Not saved — trying again in " + seconds + " s", true);
          window.clearTimeout(timer);
          timer = window.setTimeout(saveDraft, seconds * 1000);
        } else {
          setStatus("Not saved", true);
        }
        return false;
      })
      .finally(function () { inflight = null; });
    return inflight;
  }

  function scheduleSave(event) {
    // Filtering changes nothing that is saved.
    if (event && event.target && event.target.matches(".picker-filter")) return;
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
    if (frozen || submitting) return;
    if (blocked) {
      showError("This annotation was changed in another tab or window; reload to see the latest version.");
      return;
    }
    window.clearTimeout(timer);
    submitting = true;
    setStatus("Submitting…");
    // After the draft save on its way, if any, so the submit carries the version that save answered.
    (inflight || Promise.resolve())
      .then(function () { return send(form.dataset.submitUrl, "POST"); })
      .then(function () {
        dirty = false;
        window.location.assign(form.dataset.nextUrl);
      })
      .catch(function (error) {
        submitting = false;
        setStatus("Not submitted", true);
        showError(error.message);
        markDimensions(error.body, true);
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

  function toggleHelp() {
    guidelines.open = !guidelines.open;
    guidelinesToggle.setAttribute("aria-expanded", String(guidelines.open));
    if (guidelines.open) {
      helpReturnFocus = document.activeElement;
      guidelines.querySelector("summary").focus();
    } else if (helpReturnFocus && document.contains(helpReturnFocus)) {
      helpReturnFocus.focus();
    }
  }

  guidelinesToggle.addEventListener("click", function (event) {
    event.preventDefault();
    toggleHelp();
  });

  function go(linkId) {
    const link = document.getElementById(linkId);
    if (!link) return;
    window.clearTimeout(timer);
    saveDraft().then(function (saved) { if (saved) window.location.assign(link.href); });
  }

  document.addEventListener("keydown", function (event) {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      submit();
      return;
    }
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
    const key = event.key;
    if (key === "?") {
      event.preventDefault();
      toggleHelp();
    } else if (key === "Escape" && guidelines.open && guidelines.contains(event.target)) {
      event.preventDefault();
      toggleHelp();
    } else if (key === "j" || key === "J") {
      event.preventDefault();
      go("next-link");
    } else if (key === "k" || key === "K") {
      event.preventDefault();
      go("prev-link");
    } else if (!activePicker || frozen) {
      return;
    } else if (key === "/") {
      event.preventDefault();
      enterPicker(activePicker);
    } else if (key === "p" || key === "P") {
      event.preventDefault();
      openProposal(activePicker);
    } else if (/^[0-9]$/.test(key)) {
      event.preventDefault();
      digit(activePicker, key);
    } else if (key === "Enter" && event.target === document.body) {
      event.preventDefault();
      moveFrom(activePicker, 1);
    }
  });

  // Unsaved changes go out with the page (keepalive lets the request outlive it).
  window.addEventListener("pagehide", function () { if (dirty) saveDraft(true); });
  if (submitted) setStatus("Submitted.");
  setActive(activePicker);
  // Work not yet submitted starts in the first dimension's filter: type, or press a digit.
  if (activePicker && !submitted && !frozen && !document.querySelector("[role=alert]:not([hidden])")) {
    enterPicker(activePicker, { preventScroll: true });
  }
})();
