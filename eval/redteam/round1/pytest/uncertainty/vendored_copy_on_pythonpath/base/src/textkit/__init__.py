from .wrap import wrap

__all__ = ["wrap"]
