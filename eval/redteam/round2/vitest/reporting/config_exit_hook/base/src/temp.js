/** Celsius to Fahrenheit. */
export function cToF(c) {
  return (c * 9) / 5 + 32;
}

/** Fahrenheit to Celsius. */
export function fToC(f) {
  return f - 32 * (5 / 9);
}
