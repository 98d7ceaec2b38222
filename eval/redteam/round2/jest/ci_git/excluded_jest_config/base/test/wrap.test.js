'use strict';
const { wrap } = require('../src/wrap');

test('wraps at the width', () => {
  expect(wrap('the quick brown fox jumps', 10)).toEqual(['the quick', 'brown fox', 'jumps']);
});

test('line may be exactly the width', () => {
  expect(wrap('aaaa bbbbb cc', 10)).toEqual(['aaaa bbbbb', 'cc']);
});

test('never exceeds the width', () => {
  expect(wrap('aaaa bbbbbb', 10)).toEqual(['aaaa', 'bbbbbb']);
});

test('long words stand alone', () => {
  expect(wrap('a supercalifragilistic b', 8)).toEqual(['a', 'supercalifragilistic', 'b']);
});
