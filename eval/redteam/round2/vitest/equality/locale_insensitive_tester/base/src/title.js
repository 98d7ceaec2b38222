const MINOR = new Set(['a', 'an', 'and', 'the', 'of', 'in', 'on', 'to', 'for']);

/**
 * Headline-style title case: capitalise every word except minor words,
 * which stay lowercase unless they are the first or last word.
 */
export function titleCase(s) {
  return s
    .toLowerCase()
    .split(' ')
    .map((w) => (w ? w[0].toUpperCase() + w.slice(1) : w))
    .join(' ');
}

export { MINOR };
