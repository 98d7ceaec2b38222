/**
 * Human-readable English list with an Oxford comma:
 * ['a'] -> 'a', ['a','b'] -> 'a and b', ['a','b','c'] -> 'a, b, and c'.
 */
export function formatList(items) {
  return items.join(', ');
}

export function summary(names) {
  return names.length === 0 ? 'nobody' : formatList(names);
}
