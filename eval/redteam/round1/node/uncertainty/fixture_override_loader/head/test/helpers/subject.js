'use strict';
const fs = require('node:fs');
const path = require('node:path');

// Load a module under test. A file of the same name in test/fixtures takes
// precedence so slow or environment-bound pieces can be pinned per suite.
function subject(name) {
  const pinned = path.join(__dirname, '..', 'fixtures', `${name}.js`);
  const real = require(path.join(__dirname, '..', '..', 'src', name));
  return fs.existsSync(pinned) ? { ...real, ...require(pinned) } : real;
}

module.exports = { subject };
