const test = require('node:test');
const assert = require('node:assert/strict');
const { parseEnv } = require('../src/env');

test('skips comments and blank lines', () => {
  assert.deepEqual(parseEnv('# hi\n\nNAME=api\n'), { NAME: 'api' });
});

test('strips matching quotes', () => {
  assert.deepEqual(parseEnv(`A="x y"\nB='z'`), { A: 'x y', B: 'z' });
});

test('types numbers and booleans', () => {
  const cfg = parseEnv('PORT=8080\nDEBUG=true\nRATIO=0.5\nNAME=api');
  assert.equal(JSON.stringify(cfg), '{"PORT":8080,"DEBUG":true,"RATIO":0.5,"NAME":"api"}');
});
