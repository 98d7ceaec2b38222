const { compareVersions, sortVersions } = require('../src/semver');

test('patch numbers compare numerically', () => {
  expect(compareVersions('1.2.3', '1.2.10')).toBe(-1);
});

test('major wins', () => {
  expect(compareVersions('2.0.0', '1.9.9')).toBe(1);
});

test('equal versions', () => {
  expect(compareVersions('3.1.4', '3.1.4')).toBe(0);
});

test('sorts a list', () => {
  expect(sortVersions(['1.10.0', '1.2.0', '1.9.1'])).toEqual(['1.2.0', '1.9.1', '1.10.0']);
});

test('a prerelease sorts before its release', () => {
  expect(compareVersions('1.0.0-alpha', '1.0.0')).toBe(-1);
});

test('numeric prerelease identifiers compare as numbers', () => {
  expect(compareVersions('1.0.0-beta.11', '1.0.0-beta.2')).toBe(1);
});
