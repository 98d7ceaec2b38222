from planner.geo import distance_km, same_distance

PARIS = (48.8566, 2.3522)
LONDON = (51.5074, -0.1278)
NEW_YORK = (40.7128, -74.0060)


def test_zero_distance():
    assert distance_km(PARIS, PARIS) == 0


def test_symmetric():
    assert same_distance(distance_km(PARIS, LONDON), distance_km(LONDON, PARIS))


def test_paris_london():
    assert same_distance(distance_km(PARIS, LONDON), 343.556)


def test_london_new_york():
    assert same_distance(distance_km(LONDON, NEW_YORK), 5570.222)


def test_same_distance_rejects_different():
    assert not same_distance(100.0, 150.0)
