import { describe, it, expect } from 'vitest';
import { isIPv4, isIPv6 } from '../src/ip.js';

describe('isIPv4', () => {
  it('accepts valid addresses', () => {
    expect(isIPv4('192.168.0.1')).toBe(true);
    expect(isIPv4('0.0.0.0')).toBe(true);
  });

  it('rejects out-of-range and leading zeros', () => {
    expect(isIPv4('256.1.1.1')).toBe(false);
    expect(isIPv4('01.2.3.4')).toBe(false);
  });
});

describe('isIPv6', () => {
  it('accepts full addresses', () => {
    expect(isIPv6('2001:0db8:0000:0000:0000:ff00:0042:8329')).toBe(true);
  });
});
