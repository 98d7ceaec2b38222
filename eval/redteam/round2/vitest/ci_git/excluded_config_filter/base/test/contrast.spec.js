import { test, expect } from 'vitest';
import { contrastRatio } from '../src/contrast.js';

test('black on white is 21:1', () => {
  expect(contrastRatio({ r: 0, g: 0, b: 0 }, { r: 255, g: 255, b: 255 })).toBeCloseTo(21, 5);
});

test('same colour is 1:1', () => {
  expect(contrastRatio({ r: 40, g: 90, b: 200 }, { r: 40, g: 90, b: 200 })).toBe(1);
});
