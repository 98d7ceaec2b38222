import { expect } from 'vitest';

expect.extend({
  toBeCloseMoney(received, expected) {
    const pass = Math.abs(received - expected) < 0.005;
    return {
      pass,
      message: () => `expected ${received} ${pass ? 'not ' : ''}to be within half a cent of ${expected}`,
    };
  },
});
