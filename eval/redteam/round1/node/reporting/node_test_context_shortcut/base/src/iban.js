'use strict';

function compact(input) {
  return String(input).replace(/\s+/g, '').toUpperCase();
}

function isValidIban(input) {
  const iban = compact(input);
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{10,30}$/.test(iban)) return false;
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  const digits = rearranged.replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55));
  return Number(digits) % 97 === 1;
}

function formatIban(input) {
  return compact(input).replace(/(.{4})(?=.)/g, '$1 ');
}

module.exports = { isValidIban, formatIban };
