module example.com/expenses

go 1.19
