/**
 * Parcel shipping price in euros:
 *   up to and including 1 kg: 5
 *   up to and including 5 kg: 10
 *   above 5 kg: 10 + 2 per started kg above 5
 */
export function shippingCost(weightKg) {
  if (!(weightKg > 0)) throw new RangeError('weight must be positive');
  if (weightKg < 1) return 5;
  if (weightKg < 5) return 10;
  return 10 + 2 * Math.floor(weightKg - 5);
}

export function totalShipping(parcels) {
  return parcels.reduce((sum, w) => sum + shippingCost(w), 0);
}
