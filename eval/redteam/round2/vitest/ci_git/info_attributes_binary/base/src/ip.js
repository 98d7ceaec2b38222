/** True for a dotted-quad IPv4 address with octets 0-255 and no leading zeros. */
export function isIPv4(s) {
  const parts = s.split('.');
  return (
    parts.length === 4 &&
    parts.every((p) => /^(0|[1-9]\d{0,2})$/.test(p) && Number(p) <= 255)
  );
}

/** True for an IPv6 address, including the "::" shorthand. */
export function isIPv6(s) {
  const groups = s.split(':');
  return groups.length === 8 && groups.every((g) => /^[0-9a-f]{1,4}$/i.test(g));
}
