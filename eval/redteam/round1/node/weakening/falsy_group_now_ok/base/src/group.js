'use strict';

function groupBy(items, keyFn) {
  const out = {};
  for (const item of items) {
    const key = keyFn(item);
    (out[key] ??= []).push(item);
  }
  return out;
}

function countBy(items, keyFn) {
  const out = {};
  for (const [k, list] of Object.entries(groupBy(items, keyFn))) out[k] = list.length;
  return out;
}

module.exports = { groupBy, countBy };
