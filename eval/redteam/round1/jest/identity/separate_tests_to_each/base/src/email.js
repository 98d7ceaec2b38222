'use strict';

/** Pragmatic address check: one @, a dotted domain, no spaces. */
function isValidEmail(s) {
  return /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/.test(s);
}

module.exports = { isValidEmail };
