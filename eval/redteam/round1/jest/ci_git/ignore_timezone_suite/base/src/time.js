'use strict';

const pad = (n) => String(n).padStart(2, '0');

function formatHm(date) {
  return `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}`;
}

/** Wall-clock { hour, minute } of `date` in the IANA `timeZone`. */
function zonedParts(date, timeZone) {
  return { hour: date.getUTCHours(), minute: date.getUTCMinutes() };
}

module.exports = { formatHm, zonedParts };
