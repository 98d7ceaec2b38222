const RULES = [
  ['length', (pw) => pw.length > 8],
  ['upper', (pw) => /[A-Z]/.test(pw)],
  ['digit', (pw) => /\d/.test(pw)],
  ['symbol', (pw) => /[^A-Za-z0-9]/.test(pw)],
];

/** Policy: at least 8 characters, an upper-case letter, a digit and a symbol. */
export function checkPassword(pw) {
  const errors = RULES.filter(([, ok]) => !ok(pw)).map(([name]) => name);
  return { ok: errors.length === 0, errors };
}
