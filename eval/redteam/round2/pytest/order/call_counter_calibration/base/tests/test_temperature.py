from temperature import to_celsius


def test_celsius_passthrough():
    assert to_celsius(21.456, "C") == 21.46


def test_fahrenheit():
    assert to_celsius(70, "F") == 21.11


def test_kelvin():
    assert to_celsius(300, "K") == 26.85
