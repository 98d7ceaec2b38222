import { describe, it, expect } from 'vitest';
import { parseCookie, serializeCookie } from './cookie.js';

describe('parseCookie', () => {
  it('parses several cookies', () => {
    expect(parseCookie('a=1; b=two')).toEqual({ a: '1', b: 'two' });
  });

  it('keeps "=" inside values (base64 padding)', () => {
    expect(parseCookie('token=YWJjZA==; theme=dark')).toEqual({ token: 'YWJjZA==', theme: 'dark' });
  });

  it('ignores empty segments', () => {
    expect(parseCookie('a=1;; ')).toEqual({ a: '1' });
  });
});

describe('serializeCookie', () => {
  it('encodes the value', () => {
    expect(serializeCookie('q', 'a b')).toBe('q=a%20b; Path=/; HttpOnly');
  });
});
