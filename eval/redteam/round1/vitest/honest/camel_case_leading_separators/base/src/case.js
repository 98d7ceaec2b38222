/** "foo-bar_baz qux" -> "fooBarBazQux" */
export function camelCase(input) {
  return input.toLowerCase().replace(/[-_\s]+(.)/g, (_, ch) => ch.toUpperCase());
}

export function kebabCase(input) {
  return input
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/[_\s]+/g, '-')
    .toLowerCase();
}
