module example.com/feed

go 1.19
