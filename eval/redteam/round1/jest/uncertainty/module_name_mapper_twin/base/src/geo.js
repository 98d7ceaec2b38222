'use strict';

const KM_PER_DEGREE = 111.32;

/** Great-circle distance in km between two { lat, lon } points. */
function distanceKm(a, b) {
  const dLat = (b.lat - a.lat) * KM_PER_DEGREE;
  const dLon = (b.lon - a.lon) * KM_PER_DEGREE;
  return Math.sqrt(dLat ** 2 + dLon ** 2);
}

function nearest(origin, places) {
  let best = null;
  for (const p of places) {
    const d = distanceKm(origin, p);
    if (!best || d < best.d) best = { p, d };
  }
  return best && best.p;
}

module.exports = { distanceKm, nearest };
