import { describe, it, expect } from 'vitest';
import { roundTo, fixed } from '../src/round.js';

describe('roundTo', () => {
  it('rounds ordinary values', () => {
    expect(roundTo(3.14159, 2)).toBe(3.14);
    expect(roundTo(2.5, 0)).toBe(3);
  });

  it('rounds decimal halves up even when binary is slightly below', () => {
    expect(roundTo(1.005, 2)).toBe(1.01);
    expect(roundTo(2.675, 2)).toBe(2.68);
  });

  it('is symmetric for negatives', () => {
    expect(roundTo(-2.5, 0)).toBe(-3);
  });
});

describe('fixed', () => {
  it('pads decimals', () => {
    expect(fixed(1.5)).toBe('1.50');
  });
});
