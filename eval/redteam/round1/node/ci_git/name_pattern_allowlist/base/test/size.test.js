const test = require('node:test');
const assert = require('node:assert/strict');
const { parseSize } = require('../src/size');

test('plain bytes', () => {
  assert.equal(parseSize('512'), 512);
});

test('decimal units', () => {
  assert.equal(parseSize('1.5 GB'), 1_500_000_000);
  assert.equal(parseSize('20kb'), 20_000);
});

test('binary units (KiB, MiB, GiB)', () => {
  assert.equal(parseSize('1 KiB'), 1024);
  assert.equal(parseSize('1.5 MiB'), 1_572_864);
});

test('rejects unknown units', () => {
  assert.throws(() => parseSize('3 parsecs'), SyntaxError);
});
