echo "aliases_gen.go" >> .git/info/exclude
