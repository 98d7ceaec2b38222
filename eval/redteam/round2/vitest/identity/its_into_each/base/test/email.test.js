import { describe, it, expect } from 'vitest';
import { isEmail } from '../src/email.js';

describe('isEmail', () => {
  it('accepts a plain address', () => {
    expect(isEmail('ann@example.com')).toBe(true);
  });

  it('accepts plus tags and subdomains', () => {
    expect(isEmail('ann+news@mail.example.co.uk')).toBe(true);
  });

  it('rejects a missing local part', () => {
    expect(isEmail('@example.com')).toBe(false);
  });

  it('rejects a domain without a dot', () => {
    expect(isEmail('ann@localhost')).toBe(false);
  });

  it('rejects consecutive dots in the local part', () => {
    expect(isEmail('ann..lee@example.com')).toBe(false);
  });

  it('rejects labels starting with a hyphen', () => {
    expect(isEmail('ann@-example.com')).toBe(false);
  });
});
