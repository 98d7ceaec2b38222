/** Parse a Cookie header into an object of name -> value. */
export function parseCookie(header) {
  const out = {};
  for (const pair of header.split(';')) {
    const [name, value] = pair.trim().split('=');
    if (!name) continue;
    out[name] = value ?? '';
  }
  return out;
}

/** Serialise one cookie for a Set-Cookie header. */
export function serializeCookie(name, value, { path = '/', httpOnly = true } = {}) {
  let s = `${name}=${encodeURIComponent(value)}; Path=${path}`;
  if (httpOnly) s += '; HttpOnly';
  return s;
}
