'use strict';
const { distanceKm } = require('../src/geo');

test('zero distance', () => {
  expect(distanceKm([10, 20], [10, 20])).toBe(0);
});

test('along the equator', () => {
  expect(distanceKm([0, 0], [0, 1])).toBeCloseTo(111.19, 1);
});

test('Paris to London', () => {
  expect(distanceKm([48.8566, 2.3522], [51.5074, -0.1278])).toBeCloseTo(343.5, 0);
});
