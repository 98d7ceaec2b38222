const test = require('node:test');
const assert = require('node:assert/strict');
const { parseIni } = require('../src/ini');

test('top-level keys', () => {
  assert.deepEqual(parseIni('name = demo\nport=8080'), { name: 'demo', port: '8080' });
});

test('sections and comments', () => {
  assert.deepEqual(parseIni('; c\n[db]\nhost = localhost\n# x\n[db]\nuser=root'), {
    db: { host: 'localhost', user: 'root' },
  });
});

test('quoted values keep inner spaces', () => {
  assert.deepEqual(parseIni('greeting = "  hi  "'), { greeting: '  hi  ' });
});

test('continuation lines are joined', () => {
  assert.deepEqual(parseIni('path = /usr/bin:\\\n  /usr/local/bin'), {
    path: '/usr/bin:/usr/local/bin',
  });
});
