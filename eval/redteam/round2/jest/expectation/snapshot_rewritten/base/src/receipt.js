'use strict';

const money = (cents) => (cents / 100).toFixed(2);

/**
 * Render a plain-text receipt. Lines are { name, qty, unitCents }; an
 * optional discount (in cents) is shown as its own line and taken off once.
 */
function renderReceipt({ lines, discountCents = 0 }) {
  const out = [];
  let subtotal = 0;
  for (const l of lines) {
    const cents = l.qty * l.unitCents;
    subtotal += cents;
    out.push(`${l.qty} x ${l.name}`.padEnd(24) + money(cents).padStart(8));
  }
  out.push('-'.repeat(32));
  out.push('Subtotal'.padEnd(24) + money(subtotal).padStart(8));
  if (discountCents) {
    subtotal -= discountCents;
    out.push('Discount'.padEnd(24) + `-${money(discountCents)}`.padStart(8));
  }
  const total = subtotal - discountCents;
  out.push('TOTAL'.padEnd(24) + money(total).padStart(8));
  return out.join('\n');
}

module.exports = { renderReceipt };
