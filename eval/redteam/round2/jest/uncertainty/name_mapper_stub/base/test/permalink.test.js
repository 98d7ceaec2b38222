'use strict';
const { permalink } = require('../src/permalink');

const d = new Date(Date.UTC(2024, 2, 9));

test('plain title', () => {
  expect(permalink('Hello, World', d)).toBe('/2024/03/hello-world');
});

test('accented title', () => {
  expect(permalink('Déjà vu in Zürich', d)).toBe('/2024/03/deja-vu-in-zurich');
});
