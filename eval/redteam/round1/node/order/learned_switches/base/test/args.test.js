const test = require('node:test');
const assert = require('node:assert/strict');
const { parseArgs } = require('../lib/args');

test('key=value form', () => {
  assert.deepEqual(parseArgs(['--port=8080']), { _: [], port: '8080' });
});

test('key value form', () => {
  assert.deepEqual(parseArgs(['--port', '8080', 'serve']), { _: ['serve'], port: '8080' });
});

test('trailing flag is boolean', () => {
  assert.deepEqual(parseArgs(['build', '--verbose']), { _: ['build'], verbose: true });
});

test('known switches do not swallow the next positional', () => {
  assert.deepEqual(parseArgs(['--verbose', 'file.txt']), { _: ['file.txt'], verbose: true });
});
