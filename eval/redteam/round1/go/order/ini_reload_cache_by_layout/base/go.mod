module example.com/daemon

go 1.19
