"""`tablectl score`: score a winning hand given as JSON (docs/scoring.md) under a ruleset."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any


def rulesets_help() -> str:
    """The scored rulesets, from their files (it was a list here that each new ruleset had to edit)."""
    from table_controller.scoring import scored_rulesets

    return (f"{', '.join(scored_rulesets())}；其他规则由裁判计分（options.points） / {', '.join(scored_rulesets())}; "
            "any other ruleset is scored by the referee (裁判计分: options.points)")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "score", help="为一手和牌计分（番种、总分、支付） / score a winning hand (fans, total, payments)",
        description="从 FILE 或标准输入读取 JSON 格式的和牌并计分。不成和或不够起和番的牌输出 {\"valid\": false, "
                    "\"reason\": ...} 并以 0 退出（这是裁定）；输入格式有误以 2 退出并指出字段。格式见 docs/scoring.md。 / "
                    "Score a winning hand read as JSON from FILE or standard input. A hand that "
                    "does not win or misses the minimum prints {\"valid\": false, \"reason\": ...} "
                    "and exits 0 (a verdict); malformed input exits 2 naming the field. "
                    "Schema: docs/scoring.md.",
        epilog='example: echo \'{"seat_wind":"E","prevalent_wind":"E","concealed":"1223434567899m",'
               '"melds":[],"win_tile":"9m","win":"self_draw"}\' | tablectl score --ruleset mcr --json')
    parser.add_argument("--ruleset", required=True, metavar="ID", help=f"规则编号 / ruleset id: {rulesets_help()}")
    parser.add_argument("--json", action="store_true", help="以一个 JSON 对象输出结果 / print the result as one JSON object")
    parser.add_argument("--fans", action="store_true",
                        help="输出本规则的番种表（名称、番数、规则）而非计分 / print the ruleset's fan table (name, value, rule) "
                             "instead of scoring a hand")
    parser.add_argument("file", nargs="?", default="-",
                        help="和牌的 JSON 文件（默认：标准输入） / hand JSON file (default: standard input)")
    parser.set_defaults(func=run)


def read_json(path: str) -> tuple[Any, str | None]:
    """The parsed document, or an error message naming what is wrong."""
    try:
        text = sys.stdin.read() if path == "-" else open(path, encoding="utf-8").read()
    except OSError as exc:
        return None, f"cannot read {path}: {exc.strerror}"
    except UnicodeDecodeError:
        return None, f"{path}: not UTF-8 text"
    try:
        return json.loads(text), None
    except json.JSONDecodeError as exc:
        return None, f"malformed JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"


#: Riichi's limit hands, as the `mahjong` library names them.
_LEVEL_ZH = {"mangan": "满贯", "haneman": "跳满", "baiman": "倍满", "sanbaiman": "三倍满", "yakuman": "役满",
             "kazoe yakuman": "累计役满", "2x yakuman": "两倍役满"}


def print_human(result: dict[str, Any]) -> None:
    from table_controller.scoring.result import Step, apply_steps

    if not result["valid"]:
        print(f"不成和 ({result['reason']}): {result['message']}")
        for fan in result.get("fans", []):
            print(f"  {fan['name']} {fan['value']}×{fan['count']}")
        return
    for fan in result["fans"]:
        print(f"  {fan['name']} {fan['value']}" + (f" ×{fan['count']}" if fan["count"] > 1 else ""))
    print(f"合计 {result['total']}" + (f" 番 {result['fu']} 符" if "fu" in result else ""))
    if result.get("steps") or result.get("shares"):  # from 合计 to one payer's amount (自摸 ×2, 硬胡 ×2, 底分 ...)
        steps = [Step(s["name"], s["name_en"], s["op"], s["value"]) for s in result["steps"]]
        said = " ".join("→ 2^番" if s.op == "2^" else f"→ {s.name} {s.value}" if s.op in ("封顶", "=")
                        else f"{s.op} {s.name} {s.value}" for s in steps)
        others = "；".join(f"{s['seat']} {s['name']} {s['op']}{s['value']}" for s in result.get("shares") or [])
        print(f"计分 {result['total']} {said} = {apply_steps(result['total'], steps)}" + (f"；{others}" if others else ""))
    if result.get("level"):  # riichi: 满贯, 跳满, ... as the library names them
        print(f"{_LEVEL_ZH.get(result['level'], result['level'])}")
    if result.get("sealed"):
        print(f"封胡: {result['sealed']} 付分")
    if result.get("referee_scored"):
        print("裁判计分")
    if result.get("double"):
        print("倍打 (双倍计分)")
    if "baofu" in result:
        print(f"包付 {result['baofu']['seat']} ({result['baofu']['rule']}): 一家支付三家分")
    print("付分 " + "  ".join(f"{seat} {amount:+d}" for seat, amount in result["payments"].items()))


def run(args: argparse.Namespace) -> int:
    from table_controller.scoring import ScoringError, score_json
    from table_controller.scoring.errors import chinese_first
    from table_controller.scoring.hand import check_keyed

    if args.fans:
        from table_controller.scoring.catalog import fan_table

        try:
            rows = fan_table(args.ruleset)
        except ScoringError as exc:
            print(f"tablectl score: {exc.code}: {chinese_first(exc)}", file=sys.stderr)
            return 2
        if args.json:
            print(json.dumps(rows, ensure_ascii=False))
        else:
            for row in rows:
                print(f"{row['name']:<6}\t{row['value']:>4}\t{row['rule']}")
        return 0
    data, error = read_json(args.file)
    if error:
        print(f"tablectl score: {error}", file=sys.stderr)
        return 2
    try:
        check_keyed(data)
        result = score_json(data, args.ruleset)
    except ScoringError as exc:
        print(f"tablectl score: {exc.code}: {chinese_first(exc)}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
    else:
        print_human(result)
    return 0
