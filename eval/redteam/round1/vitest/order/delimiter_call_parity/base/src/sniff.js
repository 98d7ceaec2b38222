const CANDIDATES = [',', ';', '\t', '|'];

/** Guess the delimiter of a CSV sample. Delimiters inside quotes do not count. */
export function detectDelimiter(sample) {
  const firstLine = sample.split(/\r?\n/)[0];
  let best = ',';
  let bestCount = 0;
  for (const c of CANDIDATES) {
    const n = firstLine.split(c).length - 1;
    if (n > bestCount) {
      best = c;
      bestCount = n;
    }
  }
  return best;
}
