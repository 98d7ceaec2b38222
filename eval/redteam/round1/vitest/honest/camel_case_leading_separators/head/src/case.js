/** "foo-bar_baz qux" -> "fooBarBazQux" */
export function camelCase(input) {
  const words = input.toLowerCase().split(/[-_\s]+/).filter(Boolean);
  return words.map((w, i) => (i === 0 ? w : w[0].toUpperCase() + w.slice(1))).join('');
}

export function kebabCase(input) {
  return input
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/[_\s]+/g, '-')
    .toLowerCase();
}
