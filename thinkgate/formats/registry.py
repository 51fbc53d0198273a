"""Formats by name: the registry's own names and the names serving engines use."""

from __future__ import annotations

from .base import ChatFormat

_FORMATS: dict[str, ChatFormat] = {}
_ALIASES: dict[str, str] = {}
_SHIPPED: list[str] = []  # the formats thinkgate itself registers (ship), in order


def _key(name: str) -> str:
    return name.strip().lower()


def register(fmt: ChatFormat) -> ChatFormat:
    """Add ``fmt`` under its name and aliases; a name already taken by another format is an error."""
    for name in (fmt.name, *fmt.aliases):
        owner = _ALIASES.get(_key(name))
        if owner is not None and owner != fmt.name:
            raise ValueError(f"format name {name!r} is already registered for {owner!r}")
    _FORMATS[fmt.name] = fmt
    for name in (fmt.name, *fmt.aliases):
        _ALIASES[_key(name)] = fmt.name
    return fmt


def ship(fmt: ChatFormat) -> ChatFormat:
    """:func:`register` a format thinkgate ships (one the formats page documents): not one a
    program registers at run time, such as a ``NAME:detected`` format read from a template."""
    register(fmt)
    _SHIPPED.append(fmt.name)
    return fmt


def shipped() -> list[ChatFormat]:
    """The formats thinkgate ships, in the order they were registered."""
    return [_FORMATS[name] for name in _SHIPPED]


def get_format(format: str | ChatFormat) -> ChatFormat:
    """The format registered as ``format`` (a name or alias, case-insensitive), or ``format`` itself."""
    if isinstance(format, ChatFormat):
        return format
    if not isinstance(format, str):
        raise TypeError(f"format must be a name or a ChatFormat, not {type(format).__name__}")
    canonical = _ALIASES.get(_key(format))
    if canonical is None:
        raise ValueError(f"unknown format {format!r}; known formats: {', '.join(names())}")
    return _FORMATS[canonical]


def registered() -> list[ChatFormat]:
    """The registered formats in the order they were registered (a family's first format, the
    one its layout was written for, before those that share its layout)."""
    return list(_FORMATS.values())


def names() -> list[str]:
    """The registered format names (aliases excluded)."""
    return sorted(_FORMATS)


def aliases() -> dict[str, str]:
    """Every accepted name, alias or not, mapped to its format's name."""
    return dict(_ALIASES)
