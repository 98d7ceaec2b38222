const round2 = (x) => Math.round(x * 100) / 100;

/** One invoice line: amounts are rounded to cents. */
export function invoiceLine(description, net, vatRate) {
  const tax = net * vatRate;
  return { description, net, tax, gross: net + tax };
}

export function invoice(lines) {
  const total = round2(lines.reduce((s, l) => s + l.gross, 0));
  return { lines, total };
}
