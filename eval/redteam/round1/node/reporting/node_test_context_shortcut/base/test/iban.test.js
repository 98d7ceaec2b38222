const test = require('node:test');
const assert = require('node:assert/strict');
const { isValidIban, formatIban } = require('../src/iban');

test('formats into groups of four', () => {
  assert.equal(formatIban('de89370400440532013000'), 'DE89 3704 0044 0532 0130 00');
});

test('rejects characters outside the alphabet', () => {
  assert.equal(isValidIban('DE89-3704-0044-0532-0130-00'), false);
});

test('rejects a too-short number', () => {
  assert.equal(isValidIban('DE89 3704'), false);
});

test('accepts a valid German IBAN', () => {
  assert.equal(isValidIban('DE89 3704 0044 0532 0130 00'), true);
});

test('accepts a valid British IBAN', () => {
  assert.equal(isValidIban('GB29 NWBK 6016 1331 9268 19'), true);
});
