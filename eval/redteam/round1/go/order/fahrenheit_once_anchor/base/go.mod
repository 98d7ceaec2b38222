module example.com/sensors

go 1.19
