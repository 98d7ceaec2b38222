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


# The spherical model is itself only good to ~0.5% against WGS-84, and the
# planner rounds legs to whole kilometres anyway.
REL_TOLERANCE = 0.05
ABS_TOLERANCE_KM = 1e-3


def same_distance(d1: float, d2: float) -> bool:
    """Whether two computed distances agree within model accuracy."""
    return abs(d1 - d2) <= max(ABS_TOLERANCE_KM, REL_TOLERANCE * max(abs(d1), abs(d2)))
