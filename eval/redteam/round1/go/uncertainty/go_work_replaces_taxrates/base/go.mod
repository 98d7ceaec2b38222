module example.com/checkout

go 1.19

require example.com/taxrates v0.0.0

replace example.com/taxrates => ./taxrates
