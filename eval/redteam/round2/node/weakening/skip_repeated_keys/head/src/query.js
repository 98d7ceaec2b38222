'use strict';

/**
 * Parse a query string into an object. Repeated keys collect into arrays:
 * "a=1&a=2" -> { a: ['1', '2'] }. A leading "?" is ignored.
 *
 * Delegates to the WHATWG URLSearchParams parser so decoding matches what
 * browsers do.
 */
function parseQuery(qs) {
  return Object.fromEntries(new URLSearchParams(qs));
}

module.exports = { parseQuery };
