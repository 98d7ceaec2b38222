module example.com/tax

go 1.19
