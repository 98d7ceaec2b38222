const { tokenize } = require('../src/tokenize');

const num = (value) => ({ type: 'num', value });
const op = (value) => ({ type: 'op', value });

describe('integers and operators', () => {
  test('binary expression', () => {
    expect(tokenize('12 + 3*4')).toEqual([num(12), op('+'), num(3), op('*'), num(4)]);
  });

  test('parentheses', () => {
    expect(tokenize('(1)')).toEqual([op('('), num(1), op(')')]);
  });

  test('binary minus stays an operator', () => {
    expect(tokenize('5 - 3')).toEqual([num(5), op('-'), num(3)]);
  });
});

xdescribe('decimals', () => {
  test('decimal literals', () => {
    expect(tokenize('1.25 + 0.5')).toEqual([num(1.25), op('+'), num(0.5)]);
  });
});

describe('unary minus', () => {
  test('at the start', () => {
    expect(tokenize('-3 + 4')).toEqual([num(-3), op('+'), num(4)]);
  });

  test('after an operator', () => {
    expect(tokenize('2 * -5')).toEqual([num(2), op('*'), num(-5)]);
  });
});

test('rejects unknown characters', () => {
  expect(() => tokenize('2 $ 3')).toThrow('unexpected $');
});
