module example.com/taxrates

go 1.19
