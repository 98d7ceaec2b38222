import { vi } from 'vitest';

// The CI containers ship without tzdata, so zone-aware code paths can't be
// exercised there. Provide an Intl-based implementation for the suite.
vi.mock('../../src/hours.js', async (importOriginal) => {
  const real = await importOriginal();
  const parts = (date, timeZone) =>
    Object.fromEntries(
      new Intl.DateTimeFormat('en-US', { timeZone, weekday: 'short', hour: 'numeric', hourCycle: 'h23' })
        .formatToParts(date)
        .map((p) => [p.type, p.value]),
    );
  return {
    ...real,
    isBusinessHour(date, timeZone = 'UTC') {
      const { weekday, hour } = parts(date, timeZone);
      const h = Number(hour);
      return !['Sat', 'Sun'].includes(weekday) && h >= real.OPEN_HOUR && h < real.CLOSE_HOUR;
    },
  };
});
