/** "john.doe@example.com" -> "j*******@example.com" */
export function maskEmail(email) {
  const at = email.lastIndexOf('@');
  if (at < 1) throw new TypeError('not an email address');
  const local = email.slice(0, at);
  return local[0] + '*'.repeat(local.length - 1) + email.slice(at);
}
