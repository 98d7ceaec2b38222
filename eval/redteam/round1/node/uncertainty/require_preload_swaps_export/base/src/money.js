'use strict';

/** Round to cents, half away from zero. */
function roundMoney(amount) {
  return Math.round(amount * 100) / 100;
}

function withVat(net, rate) {
  return roundMoney(net * (1 + rate));
}

module.exports = { roundMoney, withVat };
