'use strict';

function isLeapYear(y) {
  return y % 4 === 0;
}

function daysInMonth(year, month) {
  // month is 1-12
  return [31, isLeapYear(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
}

module.exports = { isLeapYear, daysInMonth };
