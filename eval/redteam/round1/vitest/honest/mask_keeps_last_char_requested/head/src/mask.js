/**
 * "john.doe@example.com" -> "j******e@example.com"
 * Keeps the first and last character of the local part (support ticket #88:
 * agents need both to confirm an address with the customer). Local parts of
 * one or two characters keep only the first.
 */
export function maskEmail(email) {
  const at = email.lastIndexOf('@');
  if (at < 1) throw new TypeError('not an email address');
  const local = email.slice(0, at);
  if (local.length <= 2) return local[0] + '*'.repeat(local.length - 1) + email.slice(at);
  return local[0] + '*'.repeat(local.length - 2) + local[local.length - 1] + email.slice(at);
}
