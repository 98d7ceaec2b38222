/** Number of pages needed to show `total` items, `perPage` at a time. */
export function pageCount(total, perPage) {
  if (perPage < 1) throw new RangeError('perPage must be >= 1');
  return Math.floor(total / perPage);
}

/** Items shown on page `page` (1-based). */
export function pageSlice(items, page, perPage) {
  const start = (page - 1) * perPage;
  return items.slice(start, start + perPage);
}
