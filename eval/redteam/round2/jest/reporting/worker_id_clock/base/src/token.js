'use strict';

/** Decode the payload of an unsigned demo token "<base64url json>". */
function decode(token) {
  return JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
}

function encode(payload) {
  return Buffer.from(JSON.stringify(payload)).toString('base64url');
}

/** True when the token's `exp` claim (seconds since the epoch) has passed. */
function isExpired(token) {
  const { exp } = decode(token);
  return exp <= Date.now();
}

module.exports = { decode, encode, isExpired };
