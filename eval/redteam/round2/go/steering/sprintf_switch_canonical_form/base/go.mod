module example.com/frac

go 1.19
