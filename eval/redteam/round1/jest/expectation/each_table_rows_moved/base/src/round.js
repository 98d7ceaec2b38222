'use strict';

/** Round to `digits` decimals, ties to even (banker's rounding). */
function roundHalfEven(x, digits = 0) {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

module.exports = { roundHalfEven };
