'use strict';

// Shared test environment.
//
// src/rates.js is regenerated nightly from the EU TEDB feed, so its
// contents drift between runs. Pin it to a known snapshot of the feed so the
// suite is deterministic.
jest.mock('../src/rates', () => ({
  ...jest.requireActual('../src/rates'),
  IE: 0.23,
}));
