chmod +x scripts/test-runner.sh
