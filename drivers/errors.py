"""The one exception base of the table link, so callers catch `TableError` and nothing broader."""

from __future__ import annotations


class TableError(Exception):
    """Something about the table or its link failed; the message says what, for a person.

    `code` is stable (a `result` code name, "link_down", "table_restarted", ...) so the
    display can branch on it without matching text.
    """

    def __init__(self, message: str, code: str = "error") -> None:
        super().__init__(message)
        self.code = code


class TransportError(TableError):
    """The byte channel itself: cannot open, unplugged, closed."""

    def __init__(self, message: str, code: str = "transport") -> None:
        super().__init__(message, code)
