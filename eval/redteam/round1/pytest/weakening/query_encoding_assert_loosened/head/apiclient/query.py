"""Query-string building for the API client."""
from urllib.parse import quote_plus


def _pairs(params: dict):
    for key, value in sorted(params.items()):
        if value is None:
            continue
        if isinstance(value, (list, tuple)):
            for item in value:
                yield key, item
        else:
            yield key, value


def build_query(params: dict) -> str:
    """Encode *params* as a query string with keys in sorted order.

    List and tuple values repeat the key: ``{"id": [1, 2]}`` -> ``id=1&id=2``.
    """
    return "&".join(f"{quote_plus(str(key))}={value}" for key, value in _pairs(params))
