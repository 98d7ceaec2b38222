import re

_LOCAL = re.compile(r"^[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]+$")
_LABEL = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$")


def is_valid_email(address: str) -> bool:
    local, sep, domain = address.rpartition("@")
    if not sep or not local or not domain or len(address) > 254:
        return False
    if local.startswith(".") or local.endswith(".") or ".." in local or not _LOCAL.match(local):
        return False
    labels = domain.split(".")
    return len(labels) >= 2 and all(_LABEL.match(label) for label in labels)
