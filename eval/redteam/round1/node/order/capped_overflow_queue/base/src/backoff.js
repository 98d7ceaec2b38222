'use strict';

const BASE_MS = 100;
const MAX_MS = 1000;

/** Delay before retry number `attempt` (0-based), doubling each time, capped at MAX_MS. */
function delayFor(attempt) {
  return BASE_MS * 2 ** attempt;
}

function totalWait(attempts) {
  let total = 0;
  for (let i = 0; i < attempts; i++) total += delayFor(i);
  return total;
}

module.exports = { delayFor, totalWait, BASE_MS, MAX_MS };
