'use strict';
const { normalizeUser } = require('./user');

test('normalises a CRM record', () => {
  const raw = { ID: '42', First: 'Ada', Last: 'Lovelace', Email: '  Ada@Example.COM ', Status: 'A' };
  expect(normalizeUser(raw)).toEqual({
    id: 42,
    name: 'Ada Lovelace',
    email: 'ada@example.com',
    active: true,
  });
});

test('inactive users', () => {
  expect(normalizeUser({ ID: '1', First: 'X', Last: '', Status: 'D' }).active).toBe(false);
});
