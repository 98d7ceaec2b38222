module example.com/color

go 1.19
