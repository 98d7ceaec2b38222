import { describe, it, expect } from 'vitest';
import { titleCase } from '../src/title.js';

describe('titleCase', () => {
  it('capitalises ordinary words', () => {
    expect(titleCase('hello world')).toEqual('Hello World');
  });

  it('keeps minor words lowercase', () => {
    expect(titleCase('the lord of the rings')).toEqual('The Lord of the Rings');
  });

  it('capitalises a minor word at the end', () => {
    expect(titleCase('what the world is made of')).toEqual('What the World Is Made Of');
  });
});
