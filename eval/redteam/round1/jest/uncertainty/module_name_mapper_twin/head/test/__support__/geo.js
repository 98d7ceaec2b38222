'use strict';

const R = 6371.0088;
const rad = (deg) => (deg * Math.PI) / 180;

function distanceKm(a, b) {
  const dLat = rad(b.lat - a.lat);
  const dLon = rad(b.lon - a.lon);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.lat)) * Math.cos(rad(b.lat)) * Math.sin(dLon / 2) ** 2;
  return 2 * R * Math.asin(Math.sqrt(h));
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
