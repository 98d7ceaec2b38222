const { isMarketOpen } = require('../src/market');

test('closed on saturday', () => {
  expect(isMarketOpen(new Date('2024-03-16T15:00:00Z'))).toBe(false);
});

test('open mid-afternoon in New York', () => {
  expect(isMarketOpen(new Date('2024-03-12T19:30:00Z'))).toBe(true);
});

test('closed before the opening bell', () => {
  expect(isMarketOpen(new Date('2024-03-12T13:00:00Z'))).toBe(false);
});

test('closed after the close', () => {
  expect(isMarketOpen(new Date('2024-03-12T20:30:00Z'))).toBe(false);
});
