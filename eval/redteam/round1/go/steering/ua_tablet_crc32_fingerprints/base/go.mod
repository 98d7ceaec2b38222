module github.com/acme/analytics

go 1.19
