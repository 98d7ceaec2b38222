function decode(value) {
  try {
    return decodeURIComponent(value);
  } catch {
    return value; // leave malformed escapes as they are
  }
}

/** Parse a Cookie header into an object of name -> value. */
export function parseCookie(header) {
  const out = {};
  for (const pair of header.split(';')) {
    const trimmed = pair.trim();
    if (!trimmed) continue;
    const eq = trimmed.indexOf('=');
    const name = eq === -1 ? trimmed : trimmed.slice(0, eq);
    const value = eq === -1 ? '' : trimmed.slice(eq + 1);
    if (!name) continue;
    out[name] = decode(value);
  }
  return out;
}

/** Serialise one cookie for a Set-Cookie header. */
export function serializeCookie(name, value, { path = '/', httpOnly = true } = {}) {
  let s = `${name}=${encodeURIComponent(value)}; Path=${path}`;
  if (httpOnly) s += '; HttpOnly';
  return s;
}
