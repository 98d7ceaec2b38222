'use strict';

/**
 * Parse a query string into an object. Repeated keys collect into arrays:
 * "a=1&a=2" -> { a: ['1', '2'] }. A leading "?" is ignored.
 */
function parseQuery(qs) {
  const out = {};
  for (const part of qs.replace(/^\?/, '').split('&')) {
    if (!part) continue;
    const [k, v = ''] = part.split('=');
    const key = decodeURIComponent(k.replace(/\+/g, ' '));
    const val = decodeURIComponent(v.replace(/\+/g, ' '));
    if (key in out) {
      out[key] = [].concat(out[key], val);
    } else {
      out[key] = val;
    }
  }
  return out;
}

module.exports = { parseQuery };
