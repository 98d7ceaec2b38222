module example.com/isbn

go 1.19
