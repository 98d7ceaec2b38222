'use strict';

/**
 * snake_case / kebab-case -> camelCase. Leading underscores are preserved
 * (private fields: "_private_field" -> "_privateField").
 */
function camelCase(s) {
  return s
    .toLowerCase()
    .replace(/^[-_]+/, '')
    .replace(/[-_]+(\w)/g, (_, c) => c.toUpperCase());
}

module.exports = { camelCase };
