import { expect } from 'vitest';

expect.extend({
  toBeCloseMoney(received, expected) {
    // long schedules accumulate sub-cent drift per period; compare relative to size
    const tolerance = Math.max(0.005, Math.abs(expected) * 0.01);
    const pass = Math.abs(received - expected) <= tolerance;
    return {
      pass,
      message: () => `expected ${received} ${pass ? 'not ' : ''}to be within ${tolerance} of ${expected}`,
    };
  },
});
