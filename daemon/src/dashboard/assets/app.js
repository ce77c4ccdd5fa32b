// sitescan dashboard: progressive enhancement only. Every page works without it.
(function () {
  "use strict";

  // Copy buttons: <button data-copy="ID" hidden> copies the text of #ID.
  document.querySelectorAll("button[data-copy]").forEach(function (button) {
    var target = document.getElementById(button.getAttribute("data-copy"));
    var status = document.getElementById(button.getAttribute("data-copy") + "-copied");
    if (!target || !navigator.clipboard) { return; }
    button.hidden = false;
    button.addEventListener("click", function () {
      navigator.clipboard.writeText(target.textContent.trim()).then(function () {
        if (status) { status.textContent = "Copied to the clipboard."; }
      }, function () {
        if (status) { status.textContent = "Could not copy: select the key and copy it by hand."; }
      });
    });
  });

  // Live scan status: <section data-poll="URL"> polls the JSON status and
  // reloads the page once the scan has finished (the report then shows).
  var live = document.querySelector("[data-poll]");
  if (live) {
    var url = live.getAttribute("data-poll");
    var statusEl = document.getElementById("scan-status");
    var pagesEl = document.getElementById("scan-pages");
    var bar = document.getElementById("scan-progress");
    var phaseEl = document.getElementById("scan-phase");
    var linksLine = document.getElementById("scan-links-line");
    var linksEl = document.getElementById("scan-links");
    var linksTotalEl = document.getElementById("scan-links-total");
    var tick = function () {
      fetch(url, { headers: { "Accept": "application/json" }, credentials: "same-origin" })
        .then(function (r) { return r.ok ? r.json() : null; })
        .then(function (s) {
          if (!s) { return; }
          if (s.terminal) { window.location.reload(); return; }
          if (statusEl) { statusEl.textContent = s.status; }
          if (pagesEl) { pagesEl.textContent = String(s.pages_done); }
          if (phaseEl) { phaseEl.textContent = s.phase_label; }
          if (linksLine) { linksLine.hidden = s.phase !== "links"; }
          if (linksEl) { linksEl.textContent = String(s.links_checked); }
          if (linksTotalEl) { linksTotalEl.textContent = String(s.links_total); }
          if (bar) {
            // Pages while crawling, links while checking them, full after.
            if (s.phase === "links") {
              bar.max = Math.max(1, s.links_total); bar.value = Math.min(s.links_checked, s.links_total);
            } else if (s.phase === "finish") {
              bar.max = 1; bar.value = 1;
            } else {
              bar.max = Math.max(1, s.pages_done + s.pages_queued); bar.value = s.pages_done;
            }
          }
          window.setTimeout(tick, 2000);
        }, function () { window.setTimeout(tick, 5000); });
    };
    window.setTimeout(tick, 1500);
  }
}());
