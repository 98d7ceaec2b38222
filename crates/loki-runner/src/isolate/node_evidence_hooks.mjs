// Written by loki (loki_checks::isolate): appends each resolved ES module that lies in the user's
// checkout outside node_modules to the evidence file the preload (node_evidence.cjs) names.
// Resolution itself is unchanged.
import { appendFileSync } from 'node:fs';
import { sep } from 'node:path';
import { fileURLToPath } from 'node:url';

let cfg = null;
const seen = new Set();
const under = (p, root) => p === root || p.startsWith(root + sep);

export function initialize(data) {
  cfg = data;
}

export async function resolve(specifier, context, nextResolve) {
  const result = await nextResolve(specifier, context);
  if (cfg && result && typeof result.url === 'string' && result.url.startsWith('file://') && !seen.has(result.url)) {
    seen.add(result.url);
    try {
      const p = fileURLToPath(result.url);
      const inTree = cfg.pairs.some(([, t]) => under(p, t));
      const inCheckout = cfg.pairs.some(([c]) => under(p, c) && !p.slice(c.length).split(sep).includes('node_modules'));
      if (!inTree && inCheckout) appendFileSync(cfg.out, p + '\n');
    } catch {
      // Evidence is best effort; resolution goes on.
    }
  }
  return result;
}
