"""A malformed request said in the referee's words: each problem pydantic finds, in Chinese first.

The pages show the API's answer as it comes. A referee who typed a negative amount read
"body.amount: Input should be greater than or equal to 0"; now "罚分不能小于 0 / body.amount: …".
The English stays after the slash for the scripts and logs that read it.
"""

from __future__ import annotations

import re
from typing import Any

#: the request fields a person keys on the pages, by the name the pages give them
FIELD_ZH: dict[str, str] = {
    "seat": "座位", "code": "罚则", "amount": "罚分", "victim": "受损方", "fan": "番数", "note": "备注",
    "position": "号位", "target": "所针对的裁决编号", "text": "申诉内容", "appeal": "申诉编号", "upheld": "裁决",
    "reason": "理由", "hand": "读牌", "win": "和牌方式", "win_tile": "和张", "options": "计分选项",
    "concealed": "手牌", "melds": "副露", "hands": "各家手牌", "seq": "编号", "kind": "牌", "minutes": "比赛时长（分钟）",
    "round": "轮次", "players": "选手", "player_ids": "选手编号", "type": "录入类型", "tile": "牌", "tiles": "牌",
    "from": "来自", "name": "替补选手", "player_id": "替补选手编号", "added": "加杠", "suit": "缺门", "dice": "骰子", "result": "结果",
    "since": "编号", "limit": "条数", "hand_no": "盘号", "format": "格式", "through": "轮次", "fresh": "重新编排",
}


#: fields keyed by chair (1..4) or by seat (E S W N): what their keys are, in the pages' words
KEYED_BY: dict[str, str] = {"players": "号位", "player_ids": "号位", "hands": "座位"}


def _field(loc: tuple[Any, ...]) -> str:
    """The innermost named field of `loc` (("body", "dice", 0) → 骰子), in the pages' words; an entry of a
    field keyed by chair by its chair (("body", "players", "1") → 1号位的选手: it read "1有误")."""
    names = [str(p) for p in loc if isinstance(p, str) and p != "body"]
    if len(names) >= 3 and names[-1] == "[key]" and names[-3] in KEYED_BY:  # ("players", "5", "[key]")
        return KEYED_BY[names[-3]]
    if len(names) >= 2 and names[-2] in KEYED_BY:
        return f"{names[-1]}{KEYED_BY[names[-2]]}的{FIELD_ZH[names[-2]]}" if names[-1].isdigit() else \
            f"{FIELD_ZH.get(names[-1], names[-1])}的{FIELD_ZH[names[-2]]}"
    return FIELD_ZH.get(names[-1], names[-1]) if names else "请求"


#: pydantic's error types as sentences ({field}, and the error's context: {min_length} …)
SAID_ZH: dict[str, str] = {
    "missing": "缺少{field}", "string_too_long": "{field}太长（最多 {max_length} 个字）",
    "too_short": "{field}太少（至少 {min_length} 个）", "too_long": "{field}太多（最多 {max_length} 个）",
    "int_parsing": "{field}须为数字", "int_type": "{field}须为数字", "float_parsing": "{field}须为数字",
    "float_type": "{field}须为数字", "int_from_float": "{field}须为整数", "bool_parsing": "{field}须为是或否",
    "bool_type": "{field}须为是或否", "extra_forbidden": "多余的项：{field}", "json_invalid": "请求不是合法的 JSON",
    "greater_than_equal": "{field}不能小于 {ge}", "greater_than": "{field}须大于 {gt}",
    "less_than_equal": "{field}不能大于 {le}", "less_than": "{field}须小于 {lt}",
    "not_finite": "{field}中有 NaN 或 Infinity（JSON 没有这种数）",
    "kong_tile": "杠不用单张的牌（tile），杠的四张填在 tiles",
    "unprintable": "{field}含不可见或控制字符（第 {at} 个字 {code}），请删去后重新输入",
}


def _number(value: Any) -> Any:
    return f"{value:g}" if isinstance(value, float) else value


def problem_zh(error: dict[str, Any]) -> str:
    """One pydantic error (`ValidationError.errors()` item) as a short Chinese sentence."""
    field = _field(tuple(error.get("loc", ())))
    ctx = {k: _number(v) for k, v in (error.get("ctx") or {}).items()}
    kind = str(error.get("type", ""))
    if kind == "string_too_short":
        return f"{field}不能为空" if ctx.get("min_length") == 1 else f"{field}至少 {ctx.get('min_length')} 个字"
    if kind in ("literal_error", "enum"):  # expected: "'E', 'S', 'W' or 'N'"
        choices = re.findall(r"'([^']*)'", str(ctx.get("expected", "")))
        return f"{field}须为 {'、'.join(choices)} 之一" if choices else f"{field}有误"
    try:
        return SAID_ZH[kind].format(field=field, **ctx)
    except (KeyError, IndexError):  # a type not listed, or its context short of what the sentence names
        return f"{field}有误"


def problems(errors: list[dict[str, Any]]) -> list[str]:
    """Every problem, Chinese first, then where and what in pydantic's English."""
    return [f"{problem_zh(e)} / {'.'.join(str(p) for p in e.get('loc', ()))}: {e.get('msg', '')}" for e in errors]


async def malformed(request: Any, exc: Any) -> Any:
    """The apps' answer to a request FastAPI could not validate (`RequestValidationError`): 422, each problem
    in the pages' words first. The table's display and the hub both use it (the hub answered pydantic's
    English alone: "Input should be a valid integer" for `?round=abc`)."""
    from fastapi.responses import JSONResponse

    return JSONResponse(status_code=422, content={"error": "请求格式错误 / malformed request",
                                                  "detail": problems(list(exc.errors()))})


#: FastAPI's and Starlette's own refusals, in English alone, in the pages' words
FRAMEWORK_ZH = {"Not Found": "没有这个地址", "Method Not Allowed": "此地址不接受这种请求方法",
                "There was an error parsing the body": "请求内容无法解析（须为 UTF-8 编码的 JSON，嵌套不可过深）"}


async def refused(request: Any, exc: Any) -> Any:
    """The apps' answer to an `HTTPException`: as FastAPI's, but the framework's own words (an unknown address,
    a body nested 5,000 deep or not UTF-8) said in Chinese first too; the code's own refusals are already."""
    from fastapi.exception_handlers import http_exception_handler
    from starlette.exceptions import HTTPException

    if isinstance(exc.detail, str) and exc.detail in FRAMEWORK_ZH:
        exc = HTTPException(exc.status_code, f"{FRAMEWORK_ZH[exc.detail]} / {exc.detail}", exc.headers)
    return await http_exception_handler(request, exc)
