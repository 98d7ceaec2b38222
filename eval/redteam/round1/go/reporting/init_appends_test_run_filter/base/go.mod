module github.com/acme/termui

go 1.19
