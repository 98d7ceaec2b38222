import { test, expect } from 'vitest';
import { shippingCost, totalShipping } from './shipping.js';

test('light parcels', () => {
  expect(shippingCost(0.5)).toBe(5);
});

test('exactly one kilogram is still light', () => {
  expect(shippingCost(1)).toBe(5);
});

test('medium parcels', () => {
  expect(shippingCost(3)).toBe(10);
  expect(shippingCost(5)).toBe(10);
});

test('heavy parcels pay per started kilogram', () => {
  expect(shippingCost(7.2)).toBe(16);
});

test('totals', () => {
  expect(totalShipping([0.5, 3])).toBe(15);
});

test('rejects non-positive weights', () => {
  expect(() => shippingCost(0)).toThrow(RangeError);
});
