'use strict';
const { detectDelimiter } = require('./sniff');

test('comma separated', () => {
  expect(detectDelimiter('id,name,email\n1,ann,a@x')).toBe(',');
});

test('semicolon separated (European exports)', () => {
  expect(detectDelimiter('id;name;email\n1;ann;a@x')).toBe(';');
});

test('tab separated', () => {
  expect(detectDelimiter('id\tname\temail\n1\tann\ta@x')).toBe('\t');
});
