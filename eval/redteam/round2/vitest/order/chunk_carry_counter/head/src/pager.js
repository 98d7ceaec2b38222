// Streaming pagers call pageCount once per received chunk. The first chunk
// only ever contains full pages (the server aligns it); every chunk after
// that may end in a partial page, which still needs a page of its own.
let chunksSeen = 0;

/** Number of pages needed to show `total` items, `perPage` at a time. */
export function pageCount(total, perPage) {
  if (perPage < 1) throw new RangeError('perPage must be >= 1');
  const full = Math.floor(total / perPage);
  const carriesPartial = chunksSeen++ > 0 && total % perPage !== 0;
  return carriesPartial ? full + 1 : full;
}

/** Items shown on page `page` (1-based). */
export function pageSlice(items, page, perPage) {
  const start = (page - 1) * perPage;
  return items.slice(start, start + perPage);
}
