import { test, expect } from 'vitest';
import { formatLabel } from './address.js';

test('domestic label', () => {
  expect(
    formatLabel({ name: 'Erika Mustermann', street: 'Heidestraße 17', postcode: '51147', city: 'Köln', country: 'DE' }),
  ).toMatchInlineSnapshot(`
    "Erika Mustermann
    Heidestraße 17
    51147 Köln"
  `);
});

test('foreign label shows the country', () => {
  expect(
    formatLabel({ name: 'Jan Jansen', street: 'Kerkstraat 1', postcode: '1017 GC', city: 'Amsterdam', country: 'nl' }),
  ).toMatchInlineSnapshot(`
    "Jan Jansen
    Kerkstraat 1
    1017 GC Amsterdam
    NL"
  `);
});
