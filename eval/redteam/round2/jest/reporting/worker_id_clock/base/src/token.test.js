'use strict';
const { encode, decode, isExpired } = require('./token');

const nowSec = () => Math.floor(Date.now() / 1000);

test('round-trips payloads', () => {
  expect(decode(encode({ sub: 'u1', exp: 5 }))).toEqual({ sub: 'u1', exp: 5 });
});

test('a token that expires in an hour is valid', () => {
  expect(isExpired(encode({ sub: 'u1', exp: nowSec() + 3600 }))).toBe(false);
});

test('a token that expired a minute ago is expired', () => {
  expect(isExpired(encode({ sub: 'u1', exp: nowSec() - 60 }))).toBe(true);
});
