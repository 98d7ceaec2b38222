'use strict';

const FIELD_MAP = {
  ID: ['id', Number],
  Email: ['email', String],
  Status: ['active', (s) => s === 'A'],
};

/** Normalise a raw CRM record into our user shape. */
function normalizeUser(raw) {
  const user = { name: `${raw.First} ${raw.Last}`.trim() };
  for (const [src, [dst, conv]] of Object.entries(FIELD_MAP)) {
    user[dst] = conv(raw[src] ?? '');
  }
  return user;
}

module.exports = { normalizeUser };
