import pytest

from release.semver import bump


def test_bump_patch():
    assert bump("1.2.3", "patch") == "1.2.4"


def test_bump_minor_resets_patch():
    assert bump("1.2.3", "minor") == "1.3.0"


def test_bump_major_resets_everything():
    assert bump("1.2.3", "major") == "2.0.0"


def test_bump_prerelease_counter():
    assert bump("1.2.3-rc.1", "pre") == "1.2.3-rc.2"


def test_major_from_prerelease_finalises():
    assert bump("2.0.0-rc.1", "major") == "2.0.0"


def test_unknown_part():
    with pytest.raises(ValueError):
        bump("1.0.0", "build")
