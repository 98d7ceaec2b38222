module example.com/releaser

go 1.19
