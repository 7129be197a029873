// Posts a form marked data-submit-on-load as soon as the page is read (the answer to an LMS's
// deep-linking request); its button does the same without JavaScript.
document.querySelectorAll("form[data-submit-on-load]").forEach((form) => form.submit());
