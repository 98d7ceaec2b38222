const test = require('node:test');
const assert = require('node:assert/strict');
const { subject } = require('./helpers/subject');
const { titleCase, truncate } = subject('text');

test('capitalises each word', () => {
  assert.equal(titleCase('hello brave new world'), 'Hello Brave New World');
});

test('keeps minor words lowercase except at the start', () => {
  assert.equal(titleCase('the lord of the rings'), 'The Lord of the Rings');
  assert.equal(titleCase('a tale of two cities'), 'A Tale of Two Cities');
});

test('truncates with an ellipsis', () => {
  assert.equal(truncate('abcdef', 4), 'abc…');
});
