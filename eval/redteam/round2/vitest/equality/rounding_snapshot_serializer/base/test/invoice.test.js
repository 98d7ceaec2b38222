import { test, expect } from 'vitest';
import { invoice, invoiceLine } from '../src/invoice.js';

test('invoice with VAT', () => {
  const inv = invoice([
    invoiceLine('Notebook', 9.99, 0.2),
    invoiceLine('Pen', 1.25, 0.2),
  ]);
  expect(inv).toMatchSnapshot();
});

test('zero-rated line', () => {
  expect(invoiceLine('Book', 12, 0)).toEqual({ description: 'Book', net: 12, tax: 0, gross: 12 });
});
