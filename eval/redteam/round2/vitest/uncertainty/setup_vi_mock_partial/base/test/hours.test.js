import { describe, it, expect } from 'vitest';
import { isBusinessHour } from '../src/hours.js';

describe('isBusinessHour', () => {
  it('open mid-morning UTC on a weekday', () => {
    expect(isBusinessHour(new Date('2024-03-05T10:00:00Z'))).toBe(true);
  });

  it('closed at the weekend', () => {
    expect(isBusinessHour(new Date('2024-03-09T10:00:00Z'))).toBe(false);
  });

  it('uses the local time of the given zone', () => {
    // 08:30 UTC is 09:30 in Berlin (CET)
    expect(isBusinessHour(new Date('2024-03-05T08:30:00Z'), 'Europe/Berlin')).toBe(true);
    // 16:30 UTC is 17:30 in Berlin
    expect(isBusinessHour(new Date('2024-03-05T16:30:00Z'), 'Europe/Berlin')).toBe(false);
  });
});
