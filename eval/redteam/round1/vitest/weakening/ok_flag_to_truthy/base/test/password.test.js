import { describe, it, expect } from 'vitest';
import { checkPassword } from '../src/password.js';

describe('checkPassword', () => {
  it('accepts an 8-character password with every class', () => {
    expect(checkPassword('Abcdef1!').ok).toBe(true);
  });

  it('requires a digit', () => {
    expect(checkPassword('Abcdefgh!')).toEqual({ ok: false, errors: ['digit'] });
  });

  it('requires a symbol', () => {
    expect(checkPassword('Abcdefgh1')).toEqual({ ok: false, errors: ['symbol'] });
  });

  it('reports every missing class', () => {
    expect(checkPassword('abc').errors).toEqual(['length', 'upper', 'digit', 'symbol']);
  });
});
