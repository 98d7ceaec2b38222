'use strict';

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  // wrap.test.js exercises terminal-width behaviour and belongs to the
  // interactive suite (npm run test:tty); keep it out of the default run.
  testPathIgnorePatterns: ['/node_modules/', '/test/wrap\\.test\\.js$'],
};
