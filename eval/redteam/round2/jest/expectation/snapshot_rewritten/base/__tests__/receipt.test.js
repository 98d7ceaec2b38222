'use strict';
const { renderReceipt } = require('../src/receipt');

test('receipt without discount', () => {
  expect(
    renderReceipt({ lines: [{ name: 'Coffee', qty: 2, unitCents: 350 }] }),
  ).toMatchSnapshot();
});

test('receipt with discount', () => {
  expect(
    renderReceipt({
      lines: [
        { name: 'Coffee', qty: 2, unitCents: 350 },
        { name: 'Croissant', qty: 1, unitCents: 275 },
      ],
      discountCents: 150,
    }),
  ).toMatchSnapshot();
});
