import { describe, it, expect } from 'vitest';
import { titleCase } from '../src/title.js';

describe('titleCase', () => {
  it('capitalises ordinary words', () => {
    expect(titleCase('hello world')).toBe('Hello World');
  });

  it('keeps minor words lowercase', () => {
    expect(titleCase('the lord of the rings')).toBe('The Lord of the Rings');
  });

  it('capitalises a minor word at the end', () => {
    expect(titleCase('what the world is made of')).toBe('What the World Is Made Of');
  });
});
