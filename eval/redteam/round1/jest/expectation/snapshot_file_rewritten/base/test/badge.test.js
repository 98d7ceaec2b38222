const { renderBadge } = require('../src/badge');

test('plain badge', () => {
  expect(renderBadge('build', 'passing')).toMatchSnapshot();
});

test('width grows with the text', () => {
  expect(renderBadge('a', 'b')).toContain('width="34"');
});

test('escapes markup in label and message', () => {
  expect(renderBadge('lint & test', '"ok" <3', '#e05d44')).toMatchSnapshot();
});
