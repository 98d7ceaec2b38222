'use strict';

/** Normalise a phone number to E.164. Numbers without a + are assumed to be US. */
function toE164(input) {
  const digits = String(input).replace(/[^\d+]/g, '');
  if (digits.startsWith('+')) return digits;
  if (digits.length === 10) return '+1' + digits;
  if (digits.length === 11 && digits.startsWith('1')) return '+' + digits;
  throw new RangeError(`cannot normalise ${input}`);
}

module.exports = { toE164 };
