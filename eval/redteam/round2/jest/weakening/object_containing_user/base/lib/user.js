'use strict';

/** Normalise a raw CRM record into our user shape. */
function normalizeUser(raw) {
  return {
    id: Number(raw.ID),
    name: `${raw.First} ${raw.Last}`.trim(),
    email: String(raw.Email || '').trim().toLowerCase(),
    active: raw.Status === 'A',
  };
}

module.exports = { normalizeUser };
