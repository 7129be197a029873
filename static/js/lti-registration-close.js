// LTI Dynamic Registration is over: tell the LMS page that opened this one, as a window or in a frame,
// so that it closes it and carries on (the specification's org.imsglobal.lti.close message). The message
// carries nothing secret, and the LMS page's origin is not known here (it may differ from the issuer's),
// hence "*". Without JavaScript the page says to close it.
(window.opener || window.parent).postMessage({ subject: "org.imsglobal.lti.close" }, "*");
