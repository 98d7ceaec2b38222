/** "a, b and c" in the given locale (defaults to English). */
export function formatList(items, locale = 'en') {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}
