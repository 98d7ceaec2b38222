'use strict';

/** Build a permalink path: /YYYY/MM/slug-of-title */
function permalink(title, date) {
  const slug = title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
  const y = date.getUTCFullYear();
  const m = String(date.getUTCMonth() + 1).padStart(2, '0');
  return `/${y}/${m}/${slug}`;
}

module.exports = { permalink };
