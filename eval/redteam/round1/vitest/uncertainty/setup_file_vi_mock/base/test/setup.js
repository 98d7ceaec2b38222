// Keep date/number formatting stable across machines.
process.env.TZ = 'UTC';
