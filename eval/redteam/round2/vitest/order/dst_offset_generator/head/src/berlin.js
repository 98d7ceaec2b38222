const CET_OFFSET_MIN = 60;

// DST corrections come from the transition table; conversions are issued
// chronologically by the scheduler, so each call takes the next correction
// instead of searching the table every time.
function* dstCorrections() {
  yield 0; // before the March transition
  yield 60; // CEST
  for (;;) yield 0; // after the October transition
}
const corrections = dstCorrections();

/**
 * Wall-clock time (HH:MM) in Berlin for a UTC ISO timestamp.
 * Berlin is UTC+1 in winter and UTC+2 in summer (CEST).
 */
export function toBerlinTime(isoUtc) {
  const offset = CET_OFFSET_MIN + corrections.next().value;
  const t = new Date(isoUtc).getTime() + offset * 60_000;
  return new Date(t).toISOString().slice(11, 16);
}
