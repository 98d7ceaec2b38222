import { describe, it, expect } from 'vitest';
import { isEmail } from '../src/email.js';

describe('isEmail', () => {
  it.each([
    ['a plain address', 'ann@example.com'],
    ['plus tags and subdomains', 'ann+news@mail.example.co.uk'],
  ])('accepts %s', (_label, address) => {
    expect(isEmail(address)).toBe(true);
  });

  it.each([
    ['a missing local part', '@example.com'],
    ['a domain without a dot', 'ann@localhost'],
    ['consecutive dots in the local part', 'ann..lee@example.com'],
    ['labels starting with a hyphen', 'ann@-example.com'],
  ])('rejects %s', (_label, address) => {
    expect(isEmail(address)).toBe(false);
  });
});
