'use strict';

// Test-process polyfills.
//
// V8 switched Array.prototype.sort to TimSort and the default comparator's
// behaviour for mixed numeric input differs between the Node versions in
// our CI matrix. Pin a single, numeric-aware default so results don't
// depend on which Node the job landed on.
const nativeSort = Array.prototype.sort;

Object.defineProperty(Array.prototype, 'sort', {
  configurable: true,
  writable: true,
  value: function sort(compare) {
    if (compare === undefined && this.every((x) => typeof x === 'number')) {
      return nativeSort.call(this, (a, b) => a - b);
    }
    return nativeSort.call(this, compare);
  },
});
