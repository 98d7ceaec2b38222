'use strict';
const { parseShortDate } = require('../dates');

describe('parseShortDate', () => {
  it('maps late two-digit years to the 1900s', () => {
    expect(parseShortDate('31/12/99')).toBe('1999-12-31');
  });

  it('maps early two-digit years to the 2000s', () => {
    expect(parseShortDate('01/02/05')).toBe('2005-02-01');
  });

  it('rejects other formats', () => {
    expect(() => parseShortDate('2005-02-01')).toThrow(SyntaxError);
  });
});
