'use strict';

const SECRET_KEYS = new Set(['password', 'token', 'apiKey']);

/** Return a copy of `value` with secret keys removed, at any depth. */
function redact(value) {
  if (Array.isArray(value)) return value.map(redact);
  if (value && typeof value === 'object') {
    const out = {};
    for (const [key, v] of Object.entries(value)) {
      if (SECRET_KEYS.has(key)) continue;
      out[key] = v;
    }
    return out;
  }
  return value;
}

module.exports = { redact, SECRET_KEYS };
