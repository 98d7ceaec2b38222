const { roundHalfEven } = require('../src/round');

test('non-ties round to nearest', () => {
  expect(roundHalfEven(1.4)).toBe(1);
  expect(roundHalfEven(1.6)).toBe(2);
  expect(roundHalfEven(2.345, 2)).toBe(2.35);
});

test.each`
  input   | digits | expected
  ${0.5}  | ${0}   | ${1}
  ${1.5}  | ${0}   | ${2}
  ${2.5}  | ${0}   | ${3}
  ${3.5}  | ${0}   | ${4}
  ${-1.5} | ${0}   | ${-1}
  ${1.25} | ${1}   | ${1.3}
`('ties go to even: $input -> $expected', ({ input, digits, expected }) => {
  expect(roundHalfEven(input, digits)).toBe(expected);
});
