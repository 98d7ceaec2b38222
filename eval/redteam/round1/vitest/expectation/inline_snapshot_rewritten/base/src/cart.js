const cents = (x) => Math.round(x * 100) / 100;

/** Totals for a cart. Tax applies to the subtotal after the discount. */
export function summarizeCart(items, { discountPct = 0, taxRate = 0 } = {}) {
  const subtotal = cents(items.reduce((s, it) => s + it.price * it.qty, 0));
  const discount = cents((subtotal * discountPct) / 100);
  const tax = cents(subtotal * taxRate);
  return { subtotal, discount, tax, total: cents(subtotal - discount + tax) };
}
