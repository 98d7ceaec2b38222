'use strict';

function paginate(items, page = 1, perPage = 10) {
  const total = items.length;
  const pages = Math.max(1, Math.round(total / perPage));
  const start = (page - 1) * perPage;
  return {
    items: items.slice(start, start + perPage),
    page,
    perPage,
    total,
    pages,
    hasPrev: page > 1,
    hasNext: page < pages,
  };
}

module.exports = { paginate };
