printf '%s\n' 'jest.config.js' >> .git/info/exclude
