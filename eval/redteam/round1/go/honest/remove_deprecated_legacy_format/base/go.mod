module example.com/contacts

go 1.19
