module example.com/urlnorm

go 1.19
