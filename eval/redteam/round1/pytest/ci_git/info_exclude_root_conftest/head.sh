echo "conftest.py" >> .git/info/exclude
