// Keyboard shortcuts for the quiz screen. The pages work without this file; it only adds
// speed: 1-9 pick a choice, Enter submits, N goes to the next question.
(function () {
  "use strict";

  function isTyping(target) {
    if (!target || !target.tagName) return false;
    var tag = target.tagName.toLowerCase();
    if (tag === "textarea" || tag === "select" || target.isContentEditable) return true;
    return tag === "input" && !["radio", "checkbox", "button", "submit"].includes(target.type);
  }

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey || isTyping(event.target)) return;
    var card = document.getElementById("question-card");
    if (!card) return;
    var form = card.querySelector("form.answer-form");

    if (form && /^[1-9]$/.test(event.key)) {
      var radios = form.querySelectorAll('input[type="radio"][name="choice"]');
      var radio = radios[Number(event.key) - 1];
      if (radio) {
        radio.checked = true;
        radio.focus();
        event.preventDefault();
      }
    } else if (form && event.key === "Enter" && event.target.tagName !== "BUTTON") {
      if (form.querySelector('input[name="choice"]:checked')) {
        event.preventDefault();
        form.requestSubmit();
      }
    } else if (!form && (event.key === "n" || event.key === "N")) {
      var next = card.querySelector('[data-hotkey="n"]');
      if (next) {
        event.preventDefault();
        next.click();
      }
    }
  });

  // After HTMX swaps a question or its feedback in, move focus there so keyboard and
  // screen-reader users continue from the new content.
  document.addEventListener("htmx:afterSettle", function (event) {
    var target = event.detail.elt;
    var focusable = target.querySelector("[data-autofocus]") || target.querySelector('input[name="choice"]');
    if (focusable) focusable.focus({ preventScroll: false });
  });
})();
