import { describe, it, expect } from 'vitest';
import { clamp } from '../src/clamp.js';

describe('clamp', () => {
  it('case 1', () => {
    expect(clamp(-5, 0, 10)).toBe(0);
  });

  it('case 2', () => {
    expect(clamp(5, 0, 10)).toBe(5);
  });

  it('case 3', () => {
    expect(clamp(15, 0, 10)).toBe(10);
  });

  it('case 4', () => {
    expect(clamp(0, 0, 10)).toBe(0);
    expect(clamp(10, 0, 10)).toBe(10);
  });

  it('case 5', () => {
    expect(() => clamp(1, 10, 0)).toThrow(RangeError);
  });
});
