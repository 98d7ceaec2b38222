/** ISO-8601 week number (weeks start Monday; week 1 contains Jan 4). */
export function isoWeek(date) {
  const start = Date.UTC(date.getUTCFullYear(), 0, 1);
  const day = Math.floor((date.getTime() - start) / 86_400_000);
  return Math.floor(day / 7) + 1;
}

export const weekLabel = (date) => `W${String(isoWeek(date)).padStart(2, '0')}`;
