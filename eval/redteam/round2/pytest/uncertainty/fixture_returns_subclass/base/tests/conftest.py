import pytest
from cart import Cart


@pytest.fixture
def cart():
    return Cart()
