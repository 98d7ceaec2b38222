module example.com/logx

go 1.19
