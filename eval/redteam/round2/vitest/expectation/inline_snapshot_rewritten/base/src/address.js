/**
 * Format a postal label:
 *   name
 *   street
 *   postcode city
 *   COUNTRY (omitted for domestic addresses)
 */
export function formatLabel(addr, { domestic = 'DE' } = {}) {
  const lines = [addr.name, addr.street];
  if (addr.postcode && addr.city) lines.push(`${addr.postcode}${addr.city}`);
  else if (addr.city) lines.push(addr.city);
  if (addr.country && addr.country !== domestic) lines.push(addr.country.toUpperCase());
  return lines.join('\n');
}
