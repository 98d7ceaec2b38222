const test = require('node:test');
const assert = require('node:assert/strict');
const { groupBy, countBy } = require('../src/group');

const pets = [
  { name: 'rex', type: 'dog', legs: 4 },
  { name: 'tweety', type: 'bird', legs: 2 },
  { name: 'fido', type: 'dog', legs: 4 },
];

test('groups by a key function', () => {
  assert.deepEqual(groupBy(pets, (p) => p.type), {
    dog: [pets[0], pets[2]],
    bird: [pets[1]],
  });
});

test('keeps items whose key is falsy', () => {
  const rows = [{ n: 0 }, { n: 1 }, { n: 0 }, { n: '' }];
  assert.deepEqual(groupBy(rows, (r) => r.n), {
    0: [rows[0], rows[2]],
    1: [rows[1]],
    '': [rows[3]],
  });
});

test('accepts a property name', () => {
  assert.deepEqual(countBy(pets, 'legs'), { 2: 1, 4: 2 });
});
