"""`tablectl deal`: show where the dice break the wall and which positions each seat takes."""

from __future__ import annotations

import argparse
import json

EPILOG = """\
示例 / examples:
  tablectl deal --ruleset jingji --dice 3,4            # 对家 W, first dealt W07t
  tablectl deal --ruleset nanjing --dice 3,3 --dice2 5,6 --json
  tablectl deal --ruleset sichuan --dice 6,6 --wall-lengths 14,13,14,13
  tablectl deal --list                                  # every ruleset id and its name

位置写作 <牌墙><墩号:两位><t上|b下>：W07t 即西家牌墙第 7 墩的上层牌，墩从牌墙主人的右端数起（docs/rules.md）。
退出码：成功为 0，输入有误（未知规则、骰子或牌墙长度有误）为 2。
Positions are written <wall><stack:02d><t|b>: W07t is the top tile of stack 7 of W's wall,
stacks counted from the wall owner's right end (docs/rules.md).
Exit status: 0 on success, 2 on wrong input (unknown ruleset, wrong dice, wall lengths).
"""


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "deal",
        help="按规则和骰子计算开门和抓牌（文字图或 --json） / compute 开门 and 抓牌 for a ruleset and the dice (text "
             "picture or --json)",
        description="根据规则和庄家掷出的骰子，计算开门位置、各家起手牌的位置（抓牌）、\n"
                    "活牌墙、牌尾、海底和指示牌。\n"
                    "From a ruleset and the dealer's dice, compute the wall break (开门), each seat's\n"
                    "opening positions (抓牌), the live wall, the tail, the 海底 and the indicators.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--ruleset", metavar="ID",
                        help="规则编号，如 mcr、jingji、sichuan（见 --list） / ruleset id, e.g. mcr, jingji, sichuan (see --list)")
    parser.add_argument("--dice", metavar="A,B[,C]",
                        help="第一次掷骰，每颗骰子一个 1..6 的数，逗号分隔（guangdong 和 taiwan 用 3 颗） / the "
                             "first throw, one number 1..6 per die, comma separated (3 dice for guangdong and taiwan)")
    parser.add_argument("--dice2", metavar="A,B",
                        help="mcr 和 nanjing 的第二次掷骰（由第一次数到的一家掷） / the second throw of mcr and "
                             "nanjing (by the seat the first throw counts to)")
    parser.add_argument("--wall-lengths", metavar="E,S,W,N",
                        help="牌桌报告的每道牌墙的墩数（默认：规则的） / stacks in each wall as the table reports "
                             "them (default: the ruleset's)")
    parser.add_argument("--json", action="store_true",
                        help="输出一个 JSON 对象而非文字图 / print one JSON object instead of the picture")
    parser.add_argument("--rulesets-dir", metavar="DIR",
                        help="从 DIR 读取规则文件（默认：$TABLECTL_RULESETS_DIR 或 config/rulesets） / read ruleset "
                             "files from DIR (default: $TABLECTL_RULESETS_DIR or config/rulesets)")
    parser.add_argument("--list", action="store_true", help="列出规则编号和名称后退出 / list the ruleset ids and names, then exit")
    parser.set_defaults(func=run)


def _numbers(text: str, option: str) -> list[int]:
    """`3,4` → [3, 4]; ValueError naming the option and the bad part."""
    parts = [p.strip() for p in text.split(",")]
    out = []
    for part in parts:
        try:
            out.append(int(part))
        except ValueError:
            raise ValueError(f"{option} 须为以逗号分隔的整数，如 3,4：{text!r} 中的 {part!r} 不是数 / {option} takes whole "
                             f"numbers separated by commas, e.g. 3,4; {part!r} in {text!r} is not a number") from None
    return out


def _fail(message: object, zh: str = "输入有误") -> int:
    """Exit 2 with `message` said Chinese first (`cli.fail`); a rules error's gist from its code."""
    from table_controller.cli import fail
    from table_controller.rules.errors import RulesError, gist_zh

    return fail("deal", gist_zh(message) if isinstance(message, RulesError) else zh, message)


def run(args: argparse.Namespace) -> int:
    from table_controller.rules import DealError, RulesetError, deal_plan, load_ruleset, ruleset_ids

    try:
        if args.list:
            ids = ruleset_ids(args.rulesets_dir)
            if not ids:  # a mistyped --rulesets-dir listed nothing and exited 0
                from table_controller.rules import rulesets_dir

                where = rulesets_dir(args.rulesets_dir)
                return _fail(f"{where} 中没有规则文件（编号.toml）：请检查 --rulesets-dir 或 $TABLECTL_RULESETS_DIR / no "
                             f"ruleset files (ID.toml) in {where}: check --rulesets-dir or $TABLECTL_RULESETS_DIR")
            for rid in ids:
                rs = load_ruleset(rid, args.rulesets_dir)
                print(f"{rid:<10} {rs.name_zh}（{rs.tiles} 张，{rs.dice_count} 颗骰子{'，掷两次' if rs.throws == 2 else ''}） / "
                      f"{rs.name_en} ({rs.tiles} tiles, {rs.dice_count} dice{', two throws' if rs.throws == 2 else ''})")
            return 0
        if not args.ruleset:
            return _fail("须给出 --ruleset 规则编号（--list 列出编号） / --ruleset ID is required (try --list for the ids)")
        rs = load_ruleset(args.ruleset, args.rulesets_dir)
        if not args.dice:
            example = ",".join(["3"] * rs.dice_count)
            return _fail(f"须给出 --dice：{rs.id} 为 {rs.dice_count} 个 1 至 6 的数，如 {example} / --dice is required: "
                         f"{rs.dice_count} numbers 1..6 for {rs.id}, e.g. {example}")
        dice = _numbers(args.dice, "--dice")
        dice2 = _numbers(args.dice2, "--dice2") if args.dice2 else None
        lengths = _numbers(args.wall_lengths, "--wall-lengths") if args.wall_lengths else None
        plan = deal_plan(rs, dice, dice2, lengths)
    except (DealError, RulesetError, ValueError) as exc:
        return _fail(exc)
    if args.json:
        print(json.dumps(plan.to_json(), ensure_ascii=False))
    else:
        print(plan.render_text())
    return 0
