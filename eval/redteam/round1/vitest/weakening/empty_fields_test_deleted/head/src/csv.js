const FIELD = /"((?:[^"]|"")*)"|([^,]+)/g;

/** Split one CSV line (RFC 4180 quoting) into fields. */
export function parseCsvLine(line) {
  const out = [];
  for (const m of line.matchAll(FIELD)) {
    out.push(m[1] !== undefined ? m[1].replace(/""/g, '"') : m[2]);
  }
  return out;
}
