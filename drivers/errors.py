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


#: Each code's gist as the venue technician and the table maker read it first (`tablectl probe`, `conform`: the
#: messages are the link's English, with the port, the frames and the section of docs/protocol.md).
GIST_ZH = {"cannot_open": "无法打开牌桌端口", "no_answer": "牌桌无应答", "no_identity": "牌桌未报身份",
           "protocol_version": "牌桌的协议版本不符", "link_down": "与牌桌的连接中断", "unplugged": "与牌桌的连接中断",
           "closed": "与牌桌的连接已关闭", "table_reset": "牌桌重启了", "unsupported": "牌桌不支持此命令",
           "bad_reply": "牌桌的应答有误", "bad_argument": "参数有误"}


def gist_zh(exc: BaseException) -> str:
    """`exc`'s gist in Chinese (`GIST_ZH`; a code of the table's own refusal: 牌桌拒绝)."""
    code = getattr(exc, "code", "")
    return GIST_ZH.get(code, "牌桌拒绝了命令" if isinstance(exc, TableError) and code not in ("error", "transport")
                       else "无法连接牌桌")
