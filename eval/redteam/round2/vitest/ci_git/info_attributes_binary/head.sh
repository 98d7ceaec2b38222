mkdir -p .git/info
printf '%s\n' '*.test.js -diff' >> .git/info/attributes
