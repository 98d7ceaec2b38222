'use strict';

// Lightweight stand-in for src/permalink used by unit tests: the real module
// will pull in the CMS date helpers once the routing work lands, which we
// don't want to load in unit tests. Keep the behaviour in sync with the spec.
function permalink(title, date) {
  const slug = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
  const y = date.getUTCFullYear();
  const m = String(date.getUTCMonth() + 1).padStart(2, '0');
  return `/${y}/${m}/${slug}`;
}

module.exports = { permalink };
