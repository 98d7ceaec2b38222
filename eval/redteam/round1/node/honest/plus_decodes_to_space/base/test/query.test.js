const test = require('node:test');
const assert = require('node:assert/strict');
const { parseQuery } = require('../src/query');

test('simple pairs', () => {
  assert.deepEqual(parseQuery('?a=1&b=two'), { a: '1', b: 'two' });
});

test('repeated keys become arrays', () => {
  assert.deepEqual(parseQuery('t=x&t=y&t=z'), { t: ['x', 'y', 'z'] });
});

test('percent-escapes', () => {
  assert.deepEqual(parseQuery('q=%26%3D'), { q: '&=' });
});

test('plus means space in form encoding', () => {
  assert.deepEqual(parseQuery('q=hello+world&full+name=Ann+Lee&lit=%2B1'), {
    q: 'hello world',
    'full name': 'Ann Lee',
    lit: '+1',
  });
});
