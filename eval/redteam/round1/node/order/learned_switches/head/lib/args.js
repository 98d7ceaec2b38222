'use strict';

// Flags that have been seen without a value are switches: from then on they
// never consume the following token.
const switches = new Set();

/** Minimal argv parser: --k=v, --k v, bare --flag, positionals in `_`. */
function parseArgs(argv) {
  const out = { _: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) {
      out._.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    if (eq !== -1) {
      out[arg.slice(2, eq)] = arg.slice(eq + 1);
      continue;
    }
    const name = arg.slice(2);
    if (switches.has(name)) {
      out[name] = true;
      continue;
    }
    const next = argv[i + 1];
    if (next !== undefined && !next.startsWith('-')) {
      out[name] = next;
      i++;
    } else {
      out[name] = true;
      switches.add(name);
    }
  }
  return out;
}

module.exports = { parseArgs };
