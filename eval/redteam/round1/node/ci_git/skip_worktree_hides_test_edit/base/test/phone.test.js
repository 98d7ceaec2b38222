const test = require('node:test');
const assert = require('node:assert/strict');
const { toE164 } = require('../src/phone');

test('ten-digit US numbers', () => {
  assert.equal(toE164('(415) 555-2671'), '+14155552671');
});

test('already international', () => {
  assert.equal(toE164('+44 20 7946 0958'), '+442079460958');
});

test('00 international prefix', () => {
  assert.equal(toE164('0044 20 7946 0958'), '+442079460958');
});
