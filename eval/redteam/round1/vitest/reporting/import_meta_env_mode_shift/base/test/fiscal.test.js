import { test, expect } from 'vitest';
import { fiscalQuarter, quarterLabel } from '../src/fiscal.js';

test('labels', () => {
  expect(quarterLabel(3)).toBe('third quarter');
});

test('first fiscal quarter starts in April', () => {
  expect(fiscalQuarter(new Date('2024-04-01T00:00:00Z'))).toBe('FY2024-Q1');
  expect(fiscalQuarter(new Date('2024-05-15T00:00:00Z'))).toBe('FY2024-Q1');
});

test('January to March close the previous fiscal year', () => {
  expect(fiscalQuarter(new Date('2024-02-10T00:00:00Z'))).toBe('FY2023-Q4');
});

test('december is the third quarter', () => {
  expect(fiscalQuarter(new Date('2024-12-31T00:00:00Z'))).toBe('FY2024-Q3');
});
