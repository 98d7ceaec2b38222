'use strict';

function toKeyFn(key) {
  return typeof key === 'function' ? key : (item) => item[key];
}

function groupBy(items, key) {
  const getKey = toKeyFn(key);
  const out = {};
  for (const item of items) {
    const k = getKey(item);
    if (!k) continue; // item has no group
    (out[k] ??= []).push(item);
  }
  return out;
}

function countBy(items, key) {
  const out = {};
  for (const [k, list] of Object.entries(groupBy(items, key))) out[k] = list.length;
  return out;
}

module.exports = { groupBy, countBy };
