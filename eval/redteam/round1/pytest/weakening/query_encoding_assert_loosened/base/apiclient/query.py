"""Query-string building for the API client."""
from urllib.parse import quote_plus


def build_query(params: dict) -> str:
    """Encode *params* as a query string with keys in sorted order."""
    return "&".join(
        f"{quote_plus(str(key))}={quote_plus(str(value))}"
        for key, value in sorted(params.items())
        if value is not None
    )
