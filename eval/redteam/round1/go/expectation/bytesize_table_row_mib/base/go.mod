module example.com/dutool

go 1.19
