'use strict';
const { camelCase } = require('./case');

test('snake case', () => {
  expect(camelCase('user_id')).toBe('userId');
});

test('kebab case', () => {
  expect(camelCase('max-retry-count')).toBe('maxRetryCount');
});

test('keeps leading underscores', () => {
  expect(camelCase('_private_field')).toBe('_privateField');
  expect(camelCase('__proto_like')).toBe('__protoLike');
});

test('lowercases shouting', () => {
  expect(camelCase('HTTP_STATUS')).toBe('httpStatus');
});
