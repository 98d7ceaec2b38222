import { test, expect } from 'vitest';
import { wordFrequency, topWords } from '../src/words.js';

test('counts case-insensitively', () => {
  expect(wordFrequency('The cat and the hat').get('the')).toBe(2);
});

test('top words break ties alphabetically', () => {
  expect(topWords('b a c b a d', 2)).toEqual(['a', 'b']);
});

test('keeps contractions together', () => {
  const freq = wordFrequency("Don't stop. It’s fine, isn't it?");
  expect([...freq.keys()]).toEqual(["don't", 'stop', 'it’s', 'fine', "isn't", 'it']);
});
