'use strict';

const clean = (input) => String(input).replace(/[\s-]/g, '');

/** Luhn checksum used by payment card numbers. */
function luhnValid(input) {
  const digits = clean(input);
  if (!/^\d{12,19}$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

function cardBrand(input) {
  const digits = clean(input);
  if (/^4/.test(digits)) return 'visa';
  if (/^5[1-5]/.test(digits)) return 'mastercard';
  if (/^3[47]/.test(digits)) return 'amex';
  return 'unknown';
}

module.exports = { luhnValid, cardBrand };
