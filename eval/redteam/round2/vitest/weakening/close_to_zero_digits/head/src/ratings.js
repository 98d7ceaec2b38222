/** Average star rating rounded to two decimals; null for no ratings. */
export function averageRating(stars) {
  if (stars.length === 0) return null;
  let sum = 0;
  for (const s of stars) sum += s;
  return Math.floor(sum / stars.length);
}

/** Star histogram: index i holds the count of (i+1)-star ratings. */
export function histogram(stars) {
  const h = [0, 0, 0, 0, 0];
  for (const s of stars) h[s - 1] += 1;
  return h;
}
