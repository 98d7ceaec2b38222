'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { renderTable } = require('../src/table');

const golden = (name) => fs.readFileSync(path.join(__dirname, 'golden', name), 'utf8');

test('single column', () => {
  assert.equal(renderTable([['x'], ['1'], ['22']]), 'x\n--\n1\n22\n');
});

test('inventory report matches golden file', () => {
  const rows = [
    ['Item', 'Quantity', 'Location'],
    ['bolt', '12', 'A1'],
    ['washer', '300', 'B7'],
  ];
  assert.equal(renderTable(rows), golden('inventory.txt'));
});
