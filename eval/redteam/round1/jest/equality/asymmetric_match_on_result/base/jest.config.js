/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
};
