import { describe, it, expect } from 'vitest';
import { parseLine } from '../src/csv.js';

describe('parseLine', () => {
  it('splits plain fields', () => {
    expect(parseLine('a,b,c')).toEqual(['a', 'b', 'c']);
  });

  it('keeps commas inside quotes', () => {
    expect(parseLine('1,"Smith, John",NY')).toEqual(['1', 'Smith, John', 'NY']);
  });

  it('keeps empty fields', () => {
    expect(parseLine('a,,c,')).toEqual(['a', '', 'c', '']);
  });
});
