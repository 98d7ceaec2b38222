import pytest
from semver import bump


def test_patch():
    assert bump("1.2.3", "patch") == "1.2.4"


def test_minor_resets_patch():
    assert bump("1.2.3", "minor") == "1.3.0"


def test_major_resets_lower():
    assert bump("1.2.3", "major") == "2.0.0"


def test_unknown_part():
    with pytest.raises(ValueError):
        bump("1.2.3", "build")
