import { test, expect } from 'vitest';
import { invoice, invoiceLine } from '../src/invoice.js';

// Print fractional amounts at cent precision so snapshots don't churn on
// floating point noise (0.30000000000000004 and friends).
expect.addSnapshotSerializer({
  test: (v) => typeof v === 'number' && !Number.isInteger(v),
  serialize: (v) => String(Number(v.toFixed(2))),
});

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
