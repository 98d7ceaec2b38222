/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  // src/geo binds to the native proj backend in production; tests use the
  // pure-JS twin so they run without the addon.
  moduleNameMapper: {
    '^(\\.\\./)+src/geo$': '<rootDir>/test/__support__/geo.js',
  },
};
