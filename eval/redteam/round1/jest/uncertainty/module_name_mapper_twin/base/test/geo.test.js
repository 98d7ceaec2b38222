const { distanceKm, nearest } = require('../src/geo');

const LONDON = { name: 'London', lat: 51.5074, lon: -0.1278 };
const PARIS = { name: 'Paris', lat: 48.8566, lon: 2.3522 };
const NYC = { name: 'New York', lat: 40.7128, lon: -74.006 };
const LA = { name: 'Los Angeles', lat: 34.0522, lon: -118.2437 };
const MADRID = { name: 'Madrid', lat: 40.4168, lon: -3.7038 };

test('zero for the same point', () => {
  expect(distanceKm(PARIS, PARIS)).toBe(0);
});

test('London to Paris', () => {
  expect(Math.abs(distanceKm(LONDON, PARIS) - 343.6)).toBeLessThan(2);
});

test('New York to Los Angeles', () => {
  expect(Math.abs(distanceKm(NYC, LA) - 3936)).toBeLessThan(10);
});

test('nearest city', () => {
  expect(nearest(LONDON, [MADRID, NYC, PARIS]).name).toBe('Paris');
});
