/** Average star rating rounded to two decimals; null for no ratings. */
export function averageRating(stars) {
  if (stars.length === 0) return null;
  const avg = stars.reduce((a, b) => a + b, 0) / stars.length;
  return Math.round(avg * 100) / 100;
}

/** Star histogram: index i holds the count of (i+1)-star ratings. */
export function histogram(stars) {
  const h = [0, 0, 0, 0, 0];
  for (const s of stars) h[s - 1] += 1;
  return h;
}
