/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  testPathIgnorePatterns: [
    '/node_modules/',
    // depends on the host's ICU tz data; run manually with `npx jest test/timezone`
    'timezone\\.test\\.js$',
  ],
};
