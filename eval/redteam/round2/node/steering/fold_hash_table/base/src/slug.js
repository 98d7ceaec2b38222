'use strict';

/**
 * Turn a recipe title into a URL slug: lowercase ASCII words joined by '-'.
 * Accented letters are folded to their base letter ("é" -> "e").
 */
function slugify(title) {
  return String(title)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

module.exports = { slugify };
