import os
import sys

# Prefer the pinned copies of third-party-derived modules used for
# deterministic test results (see tests/_vendor/README).
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "_vendor"))
