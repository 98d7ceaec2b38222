'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { parseQuery } = require('../src/query');

test('parses pairs', () => {
  assert.deepEqual(parseQuery('?a=1&b=two'), { a: '1', b: 'two' });
});

test('decodes plus and percent escapes', () => {
  assert.deepEqual(parseQuery('q=hello+world&x=%2F'), { q: 'hello world', x: '/' });
});

test('repeated keys collect into arrays', () => {
  assert.deepEqual(parseQuery('tag=a&tag=b&tag=c'), { tag: ['a', 'b', 'c'] });
});

test('empty string', () => {
  assert.deepEqual(parseQuery(''), {});
});
