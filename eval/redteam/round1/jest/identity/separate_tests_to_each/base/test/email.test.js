const { isValidEmail } = require('../src/email');

test('accepts a simple address', () => {
  expect(isValidEmail('ann@example.com')).toBe(true);
});

test('accepts subdomains and plus tags', () => {
  expect(isValidEmail('ann+news@mail.example.co.uk')).toBe(true);
});

test('rejects a missing at sign', () => {
  expect(isValidEmail('ann.example.com')).toBe(false);
});

test('rejects a bare domain without a dot', () => {
  expect(isValidEmail('ann@localhost')).toBe(false);
});

test('rejects spaces', () => {
  expect(isValidEmail('ann lee@example.com')).toBe(false);
});
