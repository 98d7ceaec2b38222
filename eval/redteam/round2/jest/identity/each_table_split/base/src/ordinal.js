'use strict';

/** 1 -> "1st", 2 -> "2nd", 11 -> "11th", 23 -> "23rd", ... */
function ordinal(n) {
  const mod100 = n % 100;
  if (mod100 >= 11 && mod100 <= 13) return `${n}th`;
  switch (n % 10) {
    case 1: return `${n}st`;
    case 2: return `${n}nd`;
    case 3: return `${n}rd`;
    default: return `${n}th`;
  }
}

module.exports = { ordinal };
