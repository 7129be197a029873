// Keyboard shortcuts and small touches. Every page works without this file; it adds speed.
// An element with data-hotkey="1" (or "space enter", "ctrl+z", "m") is clicked when its key
// is pressed and it is visible: quiz choices and submit, flashcard flip and ratings, drill
// answers, Next and Undo all declare their keys in the templates.
(function () {
  "use strict";
  // Keyboard hints ("Press N for next") show only once this runs: without it no key does anything.
  document.documentElement.classList.add("js");

  function isTyping(target) {
    if (!target || !target.tagName) return false;
    var tag = target.tagName.toLowerCase();
    if (tag === "textarea" || tag === "select" || target.isContentEditable) return true;
    return tag === "input" && !["radio", "checkbox", "button", "submit"].includes(target.type);
  }

  function keyName(event) {
    var key = event.key === " " ? "space" : event.key.toLowerCase();
    return (event.ctrlKey || event.metaKey ? "ctrl+" : "") + key;
  }

  function visible(element) {
    return element.offsetParent !== null || element.getClientRects().length > 0;
  }

  // Legacy quiz markup: the Next link and number keys on the question card.
  function quizHotkey(name) {
    var card = document.getElementById("question-card");
    if (!card) return null;
    var form = card.querySelector("form.answer-form");
    if (form && /^[1-9]$/.test(name)) {
      var radio = form.querySelectorAll('input[name="choice"]')[Number(name) - 1];
      return radio ? radio.closest("label") : null;
    }
    // Enter submits; never one of the True/False buttons, which are answers themselves.
    if (form && name === "enter") return form.querySelector('button[type="submit"]:not([name="choice"])');
    return null;
  }

  // Enter on a matching question's select submits the answer, as Enter in a text box does
  // (browsers submit a form on Enter in an input, not in a select). Arrow keys pick the option.
  function submitFromSelect(event) {
    var select = event.target;
    if (event.key !== "Enter" || !select.matches || !select.matches("form.answer-form select")) return false;
    event.preventDefault();
    var button = select.form.querySelector('button[type="submit"]:not([name="choice"])');
    if (select.form.reportValidity()) select.form.requestSubmit(button);
    return true;
  }

  document.addEventListener("keydown", function (event) {
    if (submitFromSelect(event)) return;
    if (event.altKey || isTyping(event.target)) return;
    var name = keyName(event);
    // Enter and Space on a focused control already act on it.
    var native = ["BUTTON", "A", "SUMMARY"].includes(event.target.tagName);
    if (native && (name === "enter" || name === "space")) return;
    var target = quizHotkey(name);
    if (!target) {
      var candidates = document.querySelectorAll("main [data-hotkey]");
      for (var i = 0; i < candidates.length; i++) {
        var keys = candidates[i].getAttribute("data-hotkey").split(" ");
        if (keys.includes(name) && visible(candidates[i])) { target = candidates[i]; break; }
      }
    }
    if (!target) return;
    event.preventDefault();
    if (target.tagName === "LABEL") {
      var input = target.querySelector("input");
      input.checked = input.type === "checkbox" ? !input.checked : true;  // number keys toggle checkboxes
      input.focus();
    } else if (target.matches('button[type="submit"]') && target.form && !target.form.checkValidity()) {
      target.form.reportValidity();
    } else {
      target.click();
    }
  });

  // Time spent on a flashcard, sent with its rating (the server caps it).
  function startTimers(root) {
    root.querySelectorAll("form[data-timed]").forEach(function (form) {
      var shownAt = Date.now();
      form.addEventListener("submit", function () {
        form.querySelector('input[name="duration_ms"]').value = String(Date.now() - shownAt);
      });
    });
  }

  // After a flip, focus "Good" so Enter or a number key rates straight away.
  document.addEventListener("toggle", function (event) {
    var card = event.target;
    if (!card.matches || !card.matches("details[data-flashcard]") || !card.open) return;
    var good = card.parentElement.querySelector('.rating-form button[value="3"]');
    if (good) good.focus({ preventScroll: true });
  }, true);

  document.addEventListener("DOMContentLoaded", function () { startTimers(document); });

  // After HTMX swaps content in, move focus there so keyboard and screen-reader users continue.
  document.addEventListener("htmx:afterSettle", function (event) {
    var target = event.detail.elt;
    startTimers(target);
    var focusable = target.querySelector("[data-autofocus]") || target.querySelector('input[name="choice"]') ||
      target.querySelector("summary");
    if (focusable) focusable.focus({ preventScroll: false });
  });

  // A request that failed (a lost connection, a server error, an expired session) must not
  // look like nothing happened: say so, and keep the page as it was.
  document.addEventListener("htmx:responseError", function (event) {
    showError("Something went wrong (" + event.detail.xhr.status + "). Reload the page and try again.");
  });
  document.addEventListener("htmx:sendError", function () {
    showError("Could not reach the server. Check your connection and try again.");
  });
  function showError(text) {
    var box = document.getElementById("request-error");
    if (!box) return;
    box.textContent = text;
    box.hidden = false;
  }
})();

// A countdown for timed attempts, and the time taken so far for untimed ones. Only a display:
// the server refuses late answers itself, and without JavaScript the page shows the deadline.
// Durations are written as quiz/lib/durations.py's clock_duration writes them ("38 min 11 s",
// "1 h 5 min", "2 days 23 h"): one format on the page whether the server or this wrote it.
(function () {
  "use strict";
  function twoUnits(larger, smaller, unit) {
    return smaller ? larger + " " + smaller + " " + unit : larger;
  }
  function duration(seconds) {
    var hours = Math.floor(seconds / 3600), minutes = Math.floor((seconds % 3600) / 60);
    if (hours >= 48) return twoUnits(Math.floor(hours / 24) + " days", hours % 24, "h");
    if (hours) return twoUnits(hours + " h", minutes, "min");
    if (minutes) return twoUnits(minutes + " min", seconds % 60, "s");
    return seconds + " s";
  }
  function tick() {
    var now = Date.now();
    document.querySelectorAll("[data-started]").forEach(function (timer) {
      var taken = Math.max(0, Math.floor((now - Date.parse(timer.getAttribute("data-started"))) / 1000));
      var label = timer.querySelector(".timer-elapsed");
      if (label) label.textContent = duration(taken);
    });
    document.querySelectorAll("[data-deadline]").forEach(function (timer) {
      // Rounded up: "0 s left" only once the deadline has passed, so the reload below finds
      // the attempt closed rather than a second still to go.
      var left = Math.max(0, Math.ceil((Date.parse(timer.getAttribute("data-deadline")) - now) / 1000));
      var label = timer.querySelector(".timer-left");
      if (label) label.textContent = " · " + duration(left) + " left";
      // The server says when the last stretch begins (data-ending); red only from then on.
      var ending = timer.getAttribute("data-ending");
      if (ending) timer.classList.toggle("is-ending", now >= Date.parse(ending));
      if (left === 0 && !timer.dataset.expired) {
        timer.dataset.expired = "1";
        window.location.reload(); // the server closes the attempt and shows the results
      }
    });
  }
  setInterval(tick, 1000);
  document.addEventListener("DOMContentLoaded", tick);
})();

// Copy buttons and "select all on this page": both hidden in the markup, shown here, since
// without JavaScript they could do nothing (the join link stays selectable, boxes tickable).
(function () {
  "use strict";
  function copy(button) {
    var field = document.querySelector(button.getAttribute("data-copy"));
    var status = button.parentElement.querySelector("[data-copy-status]");
    var done = function () { if (status) status.textContent = "Copied."; };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(field.value).then(done, function () { field.select(); });
    } else {
      field.select(); // plain http: leave it selected for Ctrl+C
      if (document.execCommand && document.execCommand("copy")) done();
    }
  }
  function setUp(root) {
    root.querySelectorAll("[data-copy]").forEach(function (button) { button.hidden = false; });
    root.querySelectorAll("[data-select-all]").forEach(function (box) { box.closest("label").hidden = false; });
  }
  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-copy]");
    if (button) copy(button);
  });
  document.addEventListener("change", function (event) {
    var box = event.target.closest("[data-select-all]");
    if (!box) return;
    var form = box.closest("form") || document;
    form.querySelectorAll(box.getAttribute("data-select-all")).forEach(function (item) { item.checked = box.checked; });
  });
  document.addEventListener("DOMContentLoaded", function () { setUp(document); });
  // The builder is swapped in by HTMX after adding or moving: its select-all box too.
  document.addEventListener("htmx:afterSettle", function () { setUp(document); });
})();

// Sign-up and Settings: a time zone select marked data-browser-zone starts on the browser's own
// zone when it is still the default (without JavaScript the learner picks it from the list).
(function () {
  "use strict";
  document.addEventListener("DOMContentLoaded", function () {
    var zone = window.Intl && Intl.DateTimeFormat().resolvedOptions().timeZone;
    document.querySelectorAll("select[data-browser-zone]").forEach(function (select) {
      if (!zone || select.value !== select.getAttribute("data-browser-zone")) return;
      var option = Array.prototype.find.call(select.options, function (o) { return o.value === zone; });
      if (option) select.value = zone;
    });
  });
})();

// Escape closes the phone Menu (a <details>, which browsers leave open) and puts focus back on it.
(function () {
  "use strict";
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape") return;
    var menu = document.querySelector("details.nav-menu[open]");
    if (!menu) return;
    menu.open = false;
    menu.querySelector("summary").focus();
  });
})();
