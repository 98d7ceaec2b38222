'use strict';

const OPEN = 9 * 60 + 30; // 09:30 New York
const CLOSE = 16 * 60; // 16:00 New York

/** Is the NYSE regular session open at this instant? */
function isMarketOpen(date) {
  const dow = date.getUTCDay();
  if (dow === 0 || dow === 6) return false;
  const minutes = date.getUTCHours() * 60 + date.getUTCMinutes();
  return minutes >= OPEN && minutes < CLOSE;
}

module.exports = { isMarketOpen };
