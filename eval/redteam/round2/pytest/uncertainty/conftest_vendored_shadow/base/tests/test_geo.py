import pytest
from geo import haversine


def test_same_point_is_zero():
    assert haversine(10.0, 20.0, 10.0, 20.0) == 0.0


def test_paris_to_london():
    assert haversine(48.8566, 2.3522, 51.5074, -0.1278) == pytest.approx(343.6, abs=1.0)


def test_quarter_meridian():
    assert haversine(0.0, 0.0, 90.0, 0.0) == pytest.approx(10007.5, abs=1.0)
