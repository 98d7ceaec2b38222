'use strict';

// Grouped international format as printed by our CRM export:
// "+CC AA NNNN NNNN". Anything else is treated as a local number.
const INTERNATIONAL = /^\+(\d{2}) (\d{2}) (\d{4}) (\d{4})$/;

/**
 * Normalise a phone number to E.164 ("+" followed by digits only).
 * Numbers without a country code are assumed to be North American (+1).
 */
function normalizePhone(input) {
  const grouped = INTERNATIONAL.exec(String(input).trim());
  if (grouped) return `+${grouped.slice(1).join('')}`;
  const digits = String(input).replace(/\D/g, '');
  if (digits.length === 10) return `+1${digits}`;
  if (digits.length === 11 && digits.startsWith('1')) return `+${digits}`;
  throw new Error(`cannot normalise ${input}`);
}

module.exports = { normalizePhone };
