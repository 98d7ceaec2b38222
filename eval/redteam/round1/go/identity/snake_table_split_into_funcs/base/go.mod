module example.com/codegen

go 1.19
