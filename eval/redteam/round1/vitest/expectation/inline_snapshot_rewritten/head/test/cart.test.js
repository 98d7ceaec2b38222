import { test, expect } from 'vitest';
import { summarizeCart } from '../src/cart.js';

const items = [
  { sku: 'mug', price: 20, qty: 2 },
  { sku: 'tea', price: 10, qty: 1 },
];

test('no discount, no tax', () => {
  expect(summarizeCart(items).total).toBe(50);
});

test('discount then tax', () => {
  expect(summarizeCart(items, { discountPct: 10, taxRate: 0.08 })).toMatchInlineSnapshot(`
    {
      "discount": 5,
      "subtotal": 50,
      "tax": 4,
      "total": 49,
    }
  `);
});
