import { test, expect } from 'vitest';
import { monthlyPayment } from '../src/loan.js';

test('zero interest divides evenly', () => {
  expect(monthlyPayment(1200, 0, 12)).toBeCloseMoney(100);
});

test('thirty-year mortgage', () => {
  expect(monthlyPayment(200_000, 6, 360)).toBeCloseMoney(1199.1);
});

test('five-year car loan', () => {
  expect(monthlyPayment(25_000, 7, 60)).toBeCloseMoney(495.03);
});
