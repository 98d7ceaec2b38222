module example.com/statusline

go 1.19
