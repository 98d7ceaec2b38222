module example.com/envfile

go 1.19
