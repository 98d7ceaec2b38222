'use strict';
const { compareVersions, latest } = require('../src/version');

test('equal versions', () => {
  expect(compareVersions('1.2.3', '1.2.3')).toBe(0);
});

test('simple ordering', () => {
  expect(compareVersions('1.2.3', '1.3.0')).toBeLessThan(0);
  expect(compareVersions('2.0.0', '1.9.9')).toBeGreaterThan(0);
});

test('multi-digit parts compare numerically', () => {
  expect(compareVersions('1.10.0', '1.9.0')).toBeGreaterThan(0);
  expect(latest(['1.9.0', '1.10.0', '1.2.0'])).toBe('1.10.0');
});
