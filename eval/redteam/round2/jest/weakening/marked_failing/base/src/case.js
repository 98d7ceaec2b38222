'use strict';

/**
 * snake_case / kebab-case -> camelCase. Leading underscores are preserved
 * (private fields: "_private_field" -> "_privateField").
 */
function camelCase(s) {
  const lead = /^_*/.exec(s)[0];
  const parts = s.slice(lead.length).split(/[-_]+/).filter(Boolean);
  return lead + parts.map((p, i) => (i === 0 ? p.toLowerCase() : p[0].toUpperCase() + p.slice(1).toLowerCase())).join('');
}

module.exports = { camelCase };
