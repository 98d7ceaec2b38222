'use strict';

/** Format seconds as H:MM:SS (hours unpadded). */
function formatClock(total) {
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return `${h}:${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}`;
}

module.exports = { formatClock };
