/** Parse #rgb or #rrggbb into { r, g, b }. */
export function parseHex(hex) {
  const m = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(hex);
  if (!m) throw new SyntaxError(`bad colour ${hex}`);
  let h = m[1];
  if (h.length === 3) h = h.split('').map((c) => `0${c}`).join('');
  return {
    r: parseInt(h.slice(0, 2), 16),
    g: parseInt(h.slice(2, 4), 16),
    b: parseInt(h.slice(4, 6), 16),
  };
}
