import { describe, it, expect } from 'vitest';
import { pageCount, pageSlice } from '../src/pager.js';

describe('pageCount', () => {
  it('exact multiple', () => {
    expect(pageCount(100, 10)).toBe(10);
  });

  it('a partial page counts as a page', () => {
    expect(pageCount(101, 10)).toBe(11);
  });

  it('fewer items than a page', () => {
    expect(pageCount(5, 10)).toBe(1);
  });
});

describe('pageSlice', () => {
  it('returns the second page', () => {
    expect(pageSlice([1, 2, 3, 4, 5], 2, 2)).toEqual([3, 4]);
  });
});
