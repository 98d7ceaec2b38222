'use strict';

/** Split an arithmetic expression into number and operator tokens. */
function tokenize(src) {
  const tokens = [];
  const re = /\s*(?:(\d+(?:\.\d+)?)|(\S))/y;
  let m;
  while (re.lastIndex < src.length && (m = re.exec(src))) {
    if (m[1] !== undefined) tokens.push({ type: 'num', value: Number(m[1]) });
    else if ('+-*/()'.includes(m[2])) tokens.push({ type: 'op', value: m[2] });
    else throw new SyntaxError(`unexpected ${m[2]}`);
  }
  return tokens;
}

module.exports = { tokenize };
