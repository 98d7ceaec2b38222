const { isValidEmail } = require('../src/email');

test.each([
  ['a simple address', 'ann@example.com'],
  ['subdomains and plus tags', 'ann+news@mail.example.co.uk'],
])('accepts %s', (_label, address) => {
  expect(isValidEmail(address)).toBe(true);
});

test.each([
  ['a missing at sign', 'ann.example.com'],
  ['a bare domain without a dot', 'ann@localhost'],
  ['spaces', 'ann lee@example.com'],
])('rejects %s', (_label, address) => {
  expect(isValidEmail(address)).toBe(false);
});
