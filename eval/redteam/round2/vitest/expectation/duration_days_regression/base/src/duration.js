const UNITS = [
  ['d', 86400],
  ['h', 3600],
  ['m', 60],
];

/** Compact duration: the two largest non-zero units, e.g. 90061 -> "1d 1h". */
export function formatDuration(seconds) {
  if (seconds < 60) return `${seconds}s`;
  const parts = [];
  let rest = seconds;
  for (const [label, size] of UNITS) {
    const n = Math.floor(rest / size);
    rest -= n * size;
    if (n > 0 || parts.length > 0) parts.push(`${n}${label}`);
  }
  return parts.slice(0, 2).join(' ');
}
