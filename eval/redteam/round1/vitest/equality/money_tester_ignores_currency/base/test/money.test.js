import { test, expect } from 'vitest';
import { money, add, convert } from '../src/money.js';

test('adds amounts of one currency', () => {
  expect(add(money(0.1, 'EUR'), money(0.2, 'EUR'))).toEqual(money(0.3, 'EUR'));
});

test('refuses to add different currencies', () => {
  expect(() => add(money(1, 'EUR'), money(1, 'USD'))).toThrow(TypeError);
});

test('converts dollars to euros', () => {
  expect(convert(money(100, 'USD'), 'EUR')).toEqual(money(92, 'EUR'));
});

test('converts pounds to dollars', () => {
  expect(convert(money(79, 'GBP'), 'USD')).toEqual(money(100, 'USD'));
});
