import { test, expect } from 'vitest';
import { formatList } from '../src/list.js';

test('german', () => {
  expect(formatList(['Tee', 'Milch', 'Zucker'], 'de')).toBe('Tee, Milch und Zucker');
});

test('spanish', () => {
  expect(formatList(['té', 'leche'], 'es')).toBe('té y leche');
});
