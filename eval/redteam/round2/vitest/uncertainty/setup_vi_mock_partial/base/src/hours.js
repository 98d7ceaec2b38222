/** Support desk is open 09:00-17:00, Monday to Friday, in the given IANA time zone. */
export const OPEN_HOUR = 9;
export const CLOSE_HOUR = 17;

export function isBusinessHour(date, timeZone = 'UTC') {
  const day = date.getUTCDay();
  const hour = date.getUTCHours();
  return day >= 1 && day <= 5 && hour >= OPEN_HOUR && hour < CLOSE_HOUR;
}

export function statusMessage(date, timeZone) {
  return isBusinessHour(date, timeZone) ? 'We are online' : 'We will reply tomorrow';
}
