const { formatLegacy } = require('../src/format');

test('formatLegacy uses US short dates', () => {
  expect(formatLegacy(new Date('2024-03-05T10:00:00Z'))).toBe('03/05/24');
});

test('formatLegacy pads single digits', () => {
  expect(formatLegacy(new Date('2009-01-02T00:00:00Z'))).toBe('01/02/09');
});
