from .percentiles import iqr, median, percentile

__all__ = ["iqr", "median", "percentile"]
