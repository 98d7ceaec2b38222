/** Round half away from zero to `dp` decimal places. */
export function roundTo(value, dp = 2) {
  const f = 10 ** dp;
  return Math.sign(value) * (Math.round(Math.abs(value) * f) / f);
}

/** Format with exactly `dp` decimals after rounding. */
export function fixed(value, dp = 2) {
  return roundTo(value, dp).toFixed(dp);
}
