module example.com/fileserver

go 1.19
