'use strict';
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const { addBusinessDays, isWeekend } = require('../lib/business-days');

describe('addBusinessDays', () => {
  it('adds one day mid-week', () => {
    assert.equal(addBusinessDays('2024-03-04', 1), '2024-03-05');
  });

  it('skips the weekend from Friday', () => {
    assert.equal(addBusinessDays('2024-03-08', 1), '2024-03-11');
  });

  it('counts across a weekend (Thursday + 3)', () => {
    assert.equal(addBusinessDays('2024-03-07', 3), '2024-03-12');
  });

  it('spans two weekends', () => {
    assert.equal(addBusinessDays('2024-03-04', 10), '2024-03-18');
  });
});

describe('isWeekend', () => {
  it('knows Saturday and Sunday', () => {
    assert.equal(isWeekend(new Date('2024-03-09T00:00:00Z')), true);
    assert.equal(isWeekend(new Date('2024-03-10T00:00:00Z')), true);
    assert.equal(isWeekend(new Date('2024-03-11T00:00:00Z')), false);
  });
});
