"""`tablectl deal`: show where the dice break the wall and which positions each seat takes."""

from __future__ import annotations

import argparse
import json
import sys

EPILOG = """\
examples:
  tablectl deal --ruleset jingji --dice 3,4            # 对家 W, first dealt W07t
  tablectl deal --ruleset nanjing --dice 3,3 --dice2 5,6 --json
  tablectl deal --ruleset sichuan --dice 6,6 --wall-lengths 14,13,14,13
  tablectl deal --list                                  # every ruleset id and its name

Positions are written <wall><stack:02d><t|b>: W07t is the top tile of stack 7 of W's wall,
stacks counted from the wall owner's right end (docs/rules.md).
Exit status: 0 on success, 2 on wrong input (unknown ruleset, wrong dice, wall lengths).
"""


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "deal",
        help="compute 开门 and 抓牌 for a ruleset and the dice (text picture or --json)",
        description="From a ruleset and the dealer's dice, compute the wall break (开门), each seat's\n"
                    "opening positions (抓牌), the live wall, the tail, the 海底 and the indicators.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--ruleset", metavar="ID", help="ruleset id, e.g. mcr, jingji, sichuan (see --list)")
    parser.add_argument("--dice", metavar="A,B[,C]",
                        help="the first throw, one number 1..6 per die, comma separated (3 dice for "
                             "guangdong and taiwan)")
    parser.add_argument("--dice2", metavar="A,B",
                        help="the second throw of mcr and nanjing (by the seat the first throw counts to)")
    parser.add_argument("--wall-lengths", metavar="E,S,W,N",
                        help="stacks in each wall as the table reports them (default: the ruleset's)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the picture")
    parser.add_argument("--rulesets-dir", metavar="DIR",
                        help="read ruleset files from DIR (default: $TABLECTL_RULESETS_DIR or config/rulesets)")
    parser.add_argument("--list", action="store_true", help="list the ruleset ids and names, then exit")
    parser.set_defaults(func=run)


def _numbers(text: str, option: str) -> list[int]:
    """`3,4` → [3, 4]; ValueError naming the option and the bad part."""
    parts = [p.strip() for p in text.split(",")]
    out = []
    for part in parts:
        try:
            out.append(int(part))
        except ValueError:
            raise ValueError(f"{option} takes whole numbers separated by commas, e.g. 3,4; "
                             f"{part!r} in {text!r} is not a number") from None
    return out


def _fail(message: str) -> int:
    print(f"tablectl deal: error: {message}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    from table_controller.rules import DealError, RulesetError, deal_plan, load_ruleset, ruleset_ids

    try:
        if args.list:
            ids = ruleset_ids(args.rulesets_dir)
            if not ids:  # a mistyped --rulesets-dir listed nothing and exited 0
                from table_controller.rules import rulesets_dir

                return _fail(f"no ruleset files (ID.toml) in {rulesets_dir(args.rulesets_dir)}: check --rulesets-dir "
                             "or $TABLECTL_RULESETS_DIR")
            for rid in ids:
                rs = load_ruleset(rid, args.rulesets_dir)
                print(f"{rid:<10} {rs.name_zh}  {rs.name_en}  ({rs.tiles} tiles, {rs.dice_count} dice"
                      f"{', two throws' if rs.throws == 2 else ''})")
            return 0
        if not args.ruleset:
            return _fail("--ruleset ID is required (try --list for the ids)")
        rs = load_ruleset(args.ruleset, args.rulesets_dir)
        if not args.dice:
            return _fail(f"--dice is required: {rs.dice_count} numbers 1..6 for {rs.id}, e.g. "
                         f"{','.join(['3'] * rs.dice_count)}")
        dice = _numbers(args.dice, "--dice")
        dice2 = _numbers(args.dice2, "--dice2") if args.dice2 else None
        lengths = _numbers(args.wall_lengths, "--wall-lengths") if args.wall_lengths else None
        plan = deal_plan(rs, dice, dice2, lengths)
    except (DealError, RulesetError, ValueError) as exc:
        return _fail(str(exc))
    if args.json:
        print(json.dumps(plan.to_json(), ensure_ascii=False))
    else:
        print(plan.render_text())
    return 0
