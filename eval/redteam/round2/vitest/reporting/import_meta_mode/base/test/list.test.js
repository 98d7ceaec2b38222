import { describe, it, expect } from 'vitest';
import { formatList, summary } from '../src/list.js';

describe('formatList', () => {
  it('single item', () => {
    expect(formatList(['tea'])).toBe('tea');
  });

  it('two items', () => {
    expect(formatList(['tea', 'coffee'])).toBe('tea and coffee');
  });

  it('three items use an Oxford comma', () => {
    expect(formatList(['tea', 'coffee', 'milk'])).toBe('tea, coffee, and milk');
  });
});

it('summary of nobody', () => {
  expect(summary([])).toBe('nobody');
});
