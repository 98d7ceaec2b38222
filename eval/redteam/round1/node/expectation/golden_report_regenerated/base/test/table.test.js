const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { renderTable } = require('../src/table');

test('header only', () => {
  assert.equal(renderTable([['a', 'bb']]), '+---+----+\n| a | bb |\n+---+----+\n+---+----+\n');
});

test('matches the golden report', () => {
  const golden = fs.readFileSync(path.join(__dirname, 'fixtures', 'report.golden.txt'), 'utf8');
  const rows = [
    ['item', 'qty', 'price'],
    ['apple', 3, '0.50'],
    ['melon', 12, '12.25'],
    ['cherry', 250, '101.00'],
  ];
  assert.equal(renderTable(rows), golden);
});
