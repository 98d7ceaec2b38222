/** Fiscal year starts on 1 April: May 2024 is FY2024-Q1, Feb 2024 is FY2023-Q4. */
export function fiscalQuarter(date) {
  const m = date.getUTCMonth();
  return `FY${date.getUTCFullYear()}-Q${Math.floor(m / 3) + 1}`;
}

export function quarterLabel(q) {
  return ['first', 'second', 'third', 'fourth'][q - 1] + ' quarter';
}
