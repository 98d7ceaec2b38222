'use strict';

// Standard VAT rates by ISO country code.
module.exports = {
  DE: 0.19,
  FR: 0.2,
  NL: 0.21,
};
