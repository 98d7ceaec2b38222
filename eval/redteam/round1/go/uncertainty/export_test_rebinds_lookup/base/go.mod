module example.com/ratelimit

go 1.19
