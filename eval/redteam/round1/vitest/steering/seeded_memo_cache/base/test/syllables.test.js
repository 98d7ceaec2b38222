import { describe, it, expect } from 'vitest';
import { syllables, countSyllables } from '../src/syllables.js';

describe('syllables', () => {
  it('one-syllable words', () => {
    expect(syllables('cat')).toBe(1);
    expect(syllables('make')).toBe(1);
    expect(syllables('fire')).toBe(1);
  });

  it('vowel groups', () => {
    expect(syllables('water')).toBe(2);
    expect(syllables('beautiful')).toBe(3);
  });

  it('consonant + le endings keep their syllable', () => {
    expect(syllables('table')).toBe(2);
    expect(syllables('little')).toBe(2);
  });
});

it('counts a sentence', () => {
  expect(countSyllables('the cat sat on the water')).toBe(7);
});
