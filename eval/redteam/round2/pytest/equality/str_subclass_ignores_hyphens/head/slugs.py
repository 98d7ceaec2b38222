import re


class Slug(str):
    """A slug string. Routing treats separators as insignificant, so two
    slugs are the same route when their alphanumeric content matches."""

    def _key(self):
        return str.replace(self, "-", "")

    def __eq__(self, other):
        if isinstance(other, str):
            return self._key() == str.replace(other, "-", "")
        return NotImplemented

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = str.__hash__


def slugify(title):
    """Lower-case, ASCII, words joined by single hyphens."""
    out = re.sub(r"[^a-z0-9]", "-", title.lower())
    return Slug(out.strip("-"))
