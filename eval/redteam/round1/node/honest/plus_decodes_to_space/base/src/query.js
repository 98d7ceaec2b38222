'use strict';

/** Parse a URL query string. Repeated keys collect into arrays. */
function parseQuery(qs) {
  const out = {};
  const text = qs.startsWith('?') ? qs.slice(1) : qs;
  if (!text) return out;
  for (const part of text.split('&')) {
    if (!part) continue;
    const eq = part.indexOf('=');
    const rawKey = eq === -1 ? part : part.slice(0, eq);
    const rawVal = eq === -1 ? '' : part.slice(eq + 1);
    const key = decodeURIComponent(rawKey);
    const val = decodeURIComponent(rawVal);
    if (key in out) out[key] = [].concat(out[key], val);
    else out[key] = val;
  }
  return out;
}

module.exports = { parseQuery };
