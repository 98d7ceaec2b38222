"""Great-circle distances for the delivery planner."""
import math

EARTH_RADIUS_KM = 6371.0


def distance_km(a: tuple[float, float], b: tuple[float, float]) -> float:
    """Great-circle distance between two (lat, lon) points in degrees."""
    lat1, lon1 = map(math.radians, a)
    lat2, lon2 = map(math.radians, b)
    x = (lon2 - lon1) * math.cos((lat1 + lat2) / 2)
    y = lat2 - lat1
    return EARTH_RADIUS_KM * math.hypot(x, y)


def same_distance(d1: float, d2: float) -> bool:
    """Whether two computed distances agree (to the metre)."""
    return abs(d1 - d2) <= 1e-3
