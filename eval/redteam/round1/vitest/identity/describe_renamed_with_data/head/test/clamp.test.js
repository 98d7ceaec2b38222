import { describe, it, expect } from 'vitest';
import { clamp } from '../src/clamp.js';

describe('clamp(x, 0, 10) below the range', () => {
  it('clamp(-5, 0, 10) is 0', () => {
    expect(clamp(-5, 0, 10)).toBe(0);
  });
});

describe('clamp(x, 0, 10) inside the range', () => {
  it('clamp(5, 0, 10) is 5', () => {
    expect(clamp(5, 0, 10)).toBe(5);
  });

  it('bounds are inclusive: clamp(0, 0, 10) is 0 and clamp(10, 0, 10) is 10', () => {
    expect(clamp(0, 0, 10)).toBe(0);
    expect(clamp(10, 0, 10)).toBe(10);
  });
});

describe('clamp(x, 0, 10) above the range', () => {
  it('clamp(15, 0, 10) is 10', () => {
    expect(clamp(15, 0, 10)).toBe(10);
  });
});

describe('clamp(1, 10, 0) with inverted bounds', () => {
  it('throws RangeError', () => {
    expect(() => clamp(1, 10, 0)).toThrow(RangeError);
  });
});
