def parse_port(value: str) -> int:
    """Parse a TCP port number from configuration."""
    try:
        port = int(value, 10)
    except ValueError:
        raise ValueError(f"port is not a number: {value!r}") from None
    if not 1 <= port <= 65535:
        raise ValueError(f"port out of range: {port} (expected 1-65535)")
    return port
