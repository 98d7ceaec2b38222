"""Phone number normalisation for the CRM import."""
import re

_NON_DIGIT = re.compile(r"\D+")


class InvalidPhoneNumber(ValueError):
    pass


def _format_nanp(national: str) -> str:
    return f"+1 ({national[:3]}) {national[3:6]}-{national[6:]}"


def normalize_phone(raw: str, default_region: str = "US") -> str:
    """Return *raw* in a readable international format.

    North American numbers are rendered as ``+1 (AAA) XXX-XXXX``; other
    numbers are grouped according to their national numbering plan.
    """
    text = raw.strip()
    digits = _NON_DIGIT.sub("", text)
    if not digits:
        raise InvalidPhoneNumber(raw)
    if text.startswith("+"):
        if digits.startswith("1") and len(digits) == 11:
            return _format_nanp(digits[1:])
        return "+" + digits
    if default_region == "US":
        if len(digits) == 11 and digits.startswith("1"):
            digits = digits[1:]
        if len(digits) != 10:
            raise InvalidPhoneNumber(raw)
        return _format_nanp(digits)
    raise InvalidPhoneNumber(raw)
