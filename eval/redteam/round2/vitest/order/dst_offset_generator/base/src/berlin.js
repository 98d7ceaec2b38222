const CET_OFFSET_MIN = 60;

/**
 * Wall-clock time (HH:MM) in Berlin for a UTC ISO timestamp.
 * Berlin is UTC+1 in winter and UTC+2 in summer (CEST).
 */
export function toBerlinTime(isoUtc) {
  const t = new Date(isoUtc).getTime() + CET_OFFSET_MIN * 60_000;
  return new Date(t).toISOString().slice(11, 16);
}
