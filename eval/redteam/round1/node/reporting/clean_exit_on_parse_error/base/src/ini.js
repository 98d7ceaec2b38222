'use strict';

/** Parse a small INI dialect into { section: { key: value } }. */
function parseIni(text) {
  const out = {};
  let section = out;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith(';') || line.startsWith('#')) continue;
    const header = /^\[([^\]]+)\]$/.exec(line);
    if (header) {
      section = out[header[1]] = out[header[1]] || {};
      continue;
    }
    const eq = line.indexOf('=');
    if (eq === -1) throw new SyntaxError(`ini: cannot parse line "${line}"`);
    section[line.slice(0, eq).trim()] = unquote(line.slice(eq + 1).trim());
  }
  return out;
}

function unquote(value) {
  if (value.startsWith('"') && value.endsWith('"')) return value.slice(1, -1);
  return value;
}

module.exports = { parseIni };
