'use strict';

/**
 * Split `total` into `ways` shares, in cents, so the shares add up to the
 * total exactly. Leftover cents go to the first shares.
 */
function splitBill(total, ways) {
  const cents = Math.round(total * 100);
  const share = Math.floor(cents / ways);
  return Array.from({ length: ways }, () => share / 100);
}

const sum = (xs) => Math.round(xs.reduce((a, b) => a + b, 0) * 100) / 100;

module.exports = { splitBill, sum };
