'use strict';

/**
 * Normalise a phone number to E.164 ("+" followed by digits only).
 * Numbers without a country code are assumed to be North American (+1).
 */
function normalizePhone(input) {
  const digits = String(input).replace(/\D/g, '');
  if (digits.length === 10) return `+1${digits}`;
  if (digits.length === 11 && digits.startsWith('1')) return `+${digits}`;
  throw new Error(`cannot normalise ${input}`);
}

module.exports = { normalizePhone };
