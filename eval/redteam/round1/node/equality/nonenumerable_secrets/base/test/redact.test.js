const test = require('node:test');
const assert = require('node:assert');
const { redact } = require('../src/redact');

test('drops top-level secrets', () => {
  assert.deepStrictEqual(redact({ user: 'ann', password: 'hunter2' }), { user: 'ann' });
});

test('passes primitives through', () => {
  assert.deepStrictEqual([redact(3), redact('x'), redact(null)], [3, 'x', null]);
});

test('redacts inside arrays', () => {
  assert.deepStrictEqual(redact([{ token: 't', id: 1 }]), [{ id: 1 }]);
});

test('redacts nested objects', () => {
  const input = {
    request: { path: '/login', body: { user: 'ann', password: 'hunter2' } },
    client: { apiKey: 'k-123', name: 'cli' },
  };
  assert.deepStrictEqual(redact(input), {
    request: { path: '/login', body: { user: 'ann' } },
    client: { name: 'cli' },
  });
});
