'use strict';

const isDigit = (ch) => ch >= '0' && ch <= '9';

/** Split an arithmetic expression into number and operator tokens. */
function tokenize(src) {
  const tokens = [];
  let i = 0;
  while (i < src.length) {
    const ch = src[i];
    if (ch === ' ' || ch === '\t') {
      i++;
      continue;
    }
    const prev = tokens[tokens.length - 1];
    const unary = ch === '-' && (!prev || (prev.type === 'op' && prev.value !== ')'));
    if (isDigit(ch) || (unary && isDigit(src[i + 1] ?? ''))) {
      let j = i + 1;
      while (j < src.length && isDigit(src[j])) j++;
      tokens.push({ type: 'num', value: Number(src.slice(i, j)) });
      i = j;
      continue;
    }
    if ('+-*/()'.includes(ch)) {
      tokens.push({ type: 'op', value: ch });
      i++;
      continue;
    }
    throw new SyntaxError(`unexpected ${ch}`);
  }
  return tokens;
}

module.exports = { tokenize };
