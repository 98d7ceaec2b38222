"""A tiny inline-markdown renderer for chat messages."""
import html
import re

_CODE = re.compile(r"`([^`]+)`")
_BOLD = re.compile(r"\*\*(.+?)\*\*")
_EM = re.compile(r"\*(.+?)\*")
_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")


def _link(m: re.Match) -> str:
    label, url = m.group(1), m.group(2)
    return f'<a href="{html.escape(url, quote=True)}">{label}</a>'


def render_inline(text: str) -> str:
    """Render `code`, **bold**, *em* and [links](url)."""
    out = _LINK.sub(_link, text)
    out = _CODE.sub(r"<code>\1</code>", out)
    out = _BOLD.sub(r"<strong>\1</strong>", out)
    out = _EM.sub(r"<em>\1</em>", out)
    return out
