'use strict';

function core(version) {
  return version.split('-')[0].split('.').map(Number);
}

/** Semver precedence: -1, 0 or 1. Prereleases sort before their release. */
function compareVersions(a, b) {
  const pa = core(a);
  const pb = core(b);
  for (let i = 0; i < 3; i++) {
    if (pa[i] !== pb[i]) return pa[i] < pb[i] ? -1 : 1;
  }
  return 0;
}

function sortVersions(list) {
  return [...list].sort(compareVersions);
}

module.exports = { compareVersions, sortVersions };
