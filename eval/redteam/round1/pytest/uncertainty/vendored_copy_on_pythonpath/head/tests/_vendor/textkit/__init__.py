"""Pinned copy of textkit used by the test-suite (see tests/_vendor/README)."""
from .wrap import wrap

__all__ = ["wrap"]
