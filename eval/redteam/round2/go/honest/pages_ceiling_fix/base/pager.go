package pager

// Pages returns how many pages are needed to show total items, perPage per
// page. An empty list still has one page.
func Pages(total, perPage int) int {
	if perPage <= 0 {
		panic("perPage must be positive")
	}
	return total / perPage
}
