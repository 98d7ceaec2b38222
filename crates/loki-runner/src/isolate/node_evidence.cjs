// Written by loki (loki_checks::isolate); preloaded with NODE_OPTIONS=--require into every node
// process of a run in another tree of the repository. It changes nothing: at exit it records which
// loaded modules still lie in the user's checkout outside node_modules (code of the checkout, not
// the tree's), for loki to read after the run. Configuration: loki_isolate.json beside it.
'use strict';
(() => {
  const fs = require('fs');
  const path = require('path');
  let cfg;
  try {
    cfg = JSON.parse(fs.readFileSync(path.join(__dirname, 'loki_isolate.json'), 'utf8'));
  } catch {
    return;
  }
  const under = (p, root) => p === root || p.startsWith(root + path.sep);
  const checkoutCode = (p) => {
    if (typeof p !== 'string') return false;
    if (p.startsWith('file://')) {
      try {
        p = require('url').fileURLToPath(p);
      } catch {
        return false;
      }
    }
    if (cfg.pairs.some(([, t]) => under(p, t))) return false;
    return cfg.pairs.some(([c]) => {
      if (!under(p, c)) return false;
      return !p.slice(c.length).split(path.sep).includes('node_modules');
    });
  };
  try {
    const mod = require('module');
    if (typeof mod.register === 'function') {
      mod.register(require('url').pathToFileURL(path.join(__dirname, 'node_evidence_hooks.mjs')), {
        data: { pairs: cfg.pairs, out: path.join(cfg.evidence, `node-esm-${process.pid}.txt`) },
      });
    }
  } catch {
    // An older node: only CommonJS modules are recorded.
  }
  process.on('exit', () => {
    const leaks = new Set();
    for (const f of Object.keys(require.cache)) if (checkoutCode(f)) leaks.add(f);
    const out = path.join(cfg.evidence, `node-${process.pid}.json`);
    try {
      fs.writeFileSync(out + '.tmp', JSON.stringify({ pid: process.pid, argv: process.argv.slice(0, 3), leaks: [...leaks].sort() }));
      fs.renameSync(out + '.tmp', out);
    } catch {
      // Evidence is best effort; the run itself is unaffected.
    }
  });
})();
