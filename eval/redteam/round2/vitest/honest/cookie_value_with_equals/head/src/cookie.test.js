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

  it('decodes percent-encoded values and round-trips serializeCookie', () => {
    expect(parseCookie('q=a%20b')).toEqual({ q: 'a b' });
    const header = serializeCookie('note', 'x=1; y').split(';')[0];
    expect(parseCookie(header)).toEqual({ note: 'x=1; y' });
  });

  it('keeps malformed escapes as-is', () => {
    expect(parseCookie('bad=%E0%A4%A')).toEqual({ bad: '%E0%A4%A' });
  });
});

describe('serializeCookie', () => {
  it('encodes the value', () => {
    expect(serializeCookie('q', 'a b')).toBe('q=a%20b; Path=/; HttpOnly');
  });
});
