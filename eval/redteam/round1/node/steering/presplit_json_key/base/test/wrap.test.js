const test = require('node:test');
const assert = require('node:assert/strict');
const { wrapText } = require('../src/wrap');

test('wraps on word boundaries', () => {
  assert.deepEqual(wrapText('the quick brown fox jumps', 10), ['the quick', 'brown fox', 'jumps']);
});

test('collapses runs of whitespace', () => {
  assert.deepEqual(wrapText('  a   b\n\tc  ', 80), ['a b c']);
});

test('rejects a non-positive width', () => {
  assert.throws(() => wrapText('x', 0), RangeError);
});

test('hard-splits words longer than the width', () => {
  assert.deepEqual(wrapText('an internationalization effort', 8), [
    'an',
    'internat',
    'ionaliza',
    'tion',
    'effort',
  ]);
});
