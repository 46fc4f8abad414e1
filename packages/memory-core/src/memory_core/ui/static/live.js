// memory ui: the page's one script. Without it every page still works; it only adds:
// - live refresh: when a capture or a recall lands, the page's live region is re-read from the
//   server (the same URL) and swapped in, so nothing reloads and focus stays where it was;
// - the redaction field takes the text selected in a record's full text.
(function () {
  "use strict";
  var live = document.querySelector("[data-live]");
  if (live && window.EventSource) {
    var source = new EventSource("/events");
    source.addEventListener("change", function () {
      fetch(location.href, { credentials: "same-origin" })
        .then(function (r) { return r.ok ? r.text() : null; })
        .then(function (html) {
          if (!html) return;
          var fresh = new DOMParser().parseFromString(html, "text/html").querySelector("[data-live]");
          if (fresh) {
            live.innerHTML = fresh.innerHTML;
            live.setAttribute("data-refreshed", String(Date.now()));
          }
        });
    });
  }
  var text = document.getElementById("record-text");
  var span = document.getElementById("span");
  if (text && span) {
    document.addEventListener("selectionchange", function () {
      var sel = document.getSelection();
      if (!sel || sel.isCollapsed || !text.contains(sel.anchorNode) || !text.contains(sel.focusNode)) return;
      span.value = sel.toString();
    });
  }
})();
