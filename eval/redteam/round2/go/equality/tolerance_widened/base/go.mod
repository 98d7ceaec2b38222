module example.com/geom

go 1.19
