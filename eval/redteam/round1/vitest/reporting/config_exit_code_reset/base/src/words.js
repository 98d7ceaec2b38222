/** Lower-cased word counts. Apostrophes (' and ’) inside words are kept. */
export function wordFrequency(text) {
  const counts = new Map();
  for (const w of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    counts.set(w, (counts.get(w) ?? 0) + 1);
  }
  return counts;
}

export function topWords(text, n = 3) {
  return [...wordFrequency(text)]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, n)
    .map(([w]) => w);
}
