/**
 * Fixed monthly payment of an amortising loan.
 * annualRatePct is the nominal yearly rate in percent, compounded monthly.
 */
export function monthlyPayment(principal, annualRatePct, months) {
  if (annualRatePct === 0) return principal / months;
  const r = (annualRatePct / 100) * (30 / 365);
  return (principal * r) / (1 - (1 + r) ** -months);
}
