'use strict';

const BASE_MS = 100;
const MAX_MS = 5000;

/**
 * Delay before retry number `attempt` (1-based): exponential, doubling from
 * 200ms, never more than MAX_MS.
 */
function retryDelay(attempt) {
  if (!Number.isInteger(attempt) || attempt < 1) {
    throw new RangeError('attempt must be a positive integer');
  }
  return BASE_MS * 2 ** attempt;
}

module.exports = { retryDelay, MAX_MS };
