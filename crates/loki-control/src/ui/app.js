// loki control: live updates and the answer box. No dependencies; served from the binary.
"use strict";

// The runs list reloads when a run changes (the server polls its store, so every instance agrees).
const runs = document.getElementById("runs");
if (runs && window.EventSource) {
  const live = new EventSource(runs.dataset.live);
  live.addEventListener("changed", () => window.location.reload());
}

// The live event tail of a run.
const tail = document.getElementById("tail");
if (tail && window.EventSource) {
  const stream = new EventSource(tail.dataset.stream);
  stream.addEventListener("event", (e) => {
    const ev = JSON.parse(e.data);
    const li = document.createElement("li");
    li.textContent = `${ev.seq} ${ev.ts} ${ev.type}${ev.stage ? " " + ev.stage : ""}${ev.redacted ? " (redacted)" : ""}`;
    tail.appendChild(li);
  });
}

// The answer box of a BLOCKED run posts JSON (the server accepts nothing else).
const form = document.getElementById("answer");
if (form) {
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const out = form.querySelector("output");
    const answer = form.querySelector("textarea").value;
    const r = await fetch(form.dataset.post, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ answer }),
    });
    const body = await r.json();
    out.textContent = r.ok ? "stored: " + body.next : body.error;
  });
}
