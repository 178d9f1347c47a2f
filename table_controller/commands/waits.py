"""`tablectl waits`: the winning tiles of a ready hand, with what each would score."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "waits", help="列出听牌的和张及各自得分 / list the winning tiles of a ready hand (听牌) and their scores",
        description="列出能使 13 张听牌完成的和张及各自得分（用于诈和核查和查大叫）。HAND 为暗牌（如 1112345678999m），"
                    "已亮出的副露用 --meld 给出。用 '-' 从标准输入读取计分 JSON（docs/scoring.md，不含 win_tile）。"
                    "输入格式有误以 2 退出。 / "
                    "List the tiles that complete a ready 13-tile hand and what each would score "
                    "(for 诈和 checks and 查大叫). HAND is the concealed tiles (e.g. 1112345678999m); "
                    "declared melds go in --meld. Use '-' to read the score JSON (docs/scoring.md, "
                    "without win_tile) from standard input. Malformed input exits 2.",
        epilog="example: tablectl waits 1112345678999m --ruleset mcr")
    parser.add_argument("hand", metavar="HAND",
                        help="暗牌，或 - 表示从标准输入读 JSON / concealed tiles, or - for JSON on standard input")
    parser.add_argument("--ruleset", default="mcr", metavar="ID",
                        help="任一规则编号（默认 mcr；见 `tablectl deal --list`）；裁判计分的规则只列出牌型的和张 / "
                             "any ruleset id (default mcr; `tablectl deal --list`); under one the referee "
                             "scores (裁判计分: shanghai, taiwan ...) the waits of the shape only")
    parser.add_argument("--meld", action="append", default=[], metavar="TYPE:TILES[:FROM]",
                        help="一组副露，如 pung:555z:N（碰）、chi:123m:N（吃）、kong:1111p（暗杠） / a declared meld, e.g. "
                             "pung:555z:N, chi:123m:N, kong:1111p (concealed)")
    parser.add_argument("--seat", default="E", choices=["E", "S", "W", "N"], help="门风（默认 E 东） / seat wind (default E)")
    parser.add_argument("--prevalent", default="E", choices=["E", "S", "W", "N"],
                        help="圈风（默认 E 东） / prevalent wind (default E)")
    parser.add_argument("--self-draw", action="store_true", help="按自摸计分（默认点和） / score the waits as 自摸 (default 点和)")
    parser.add_argument("--json", action="store_true", help="输出一个 JSON 对象 / print one JSON object")
    parser.set_defaults(func=run)


def _meld(text: str) -> dict[str, Any]:
    parts = text.split(":")
    if len(parts) not in (2, 3):
        raise ValueError(f"--meld {text!r}: expected TYPE:TILES[:FROM]")
    meld: dict[str, Any] = {"type": parts[0], "tiles": parts[1]}
    if len(parts) == 3:
        meld["from"] = parts[2]
    else:
        meld["concealed"] = True
    return meld


def run(args: argparse.Namespace) -> int:
    from table_controller import tiles as T
    from table_controller.scoring import ScoringError, referee_scored
    from table_controller.scoring.errors import chinese_first
    from table_controller.scoring.config import scoring
    from table_controller.scoring.hand import HandInput
    from table_controller.scoring.waits import waits

    try:
        if args.hand == "-":
            from table_controller.commands.score import read_json

            data, error = read_json("-")
            if error:
                raise ValueError(error)
        else:
            data = {"seat_wind": args.seat, "prevalent_wind": args.prevalent, "concealed": args.hand,
                    "melds": [_meld(m) for m in args.meld]}
        if isinstance(data, dict) and "win" not in data:
            data["win"] = "self_draw" if args.self_draw else "discard"
        if referee_scored(args.ruleset):  # 裁判计分: the shape's waits; the points are the referee's
            from table_controller.scoring import manual

            tiles = manual.waits(manual.ready_json(data, args.ruleset), args.ruleset)
            print(json.dumps({"ruleset": args.ruleset, "ready": bool(tiles), "referee_scored": True,
                              "waits": [{"tile": t, "name": T.tile_name(t)} for t in tiles]}, ensure_ascii=False)
                  if args.json else ("\n".join(f"{t:>3} {T.tile_name(t)}  裁判计分" for t in tiles) or "未听牌 (not ready)"))
            return 0
        scoring(args.ruleset)
        hand = HandInput.from_json(data, ready_only=True)
        found = waits(hand, args.ruleset)
    except (ScoringError, ValueError) as exc:
        code = getattr(exc, "code", "bad_field")
        said = chinese_first(exc) if isinstance(exc, ScoringError) else str(exc)
        print(f"tablectl waits: {code}: {said}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({"ruleset": args.ruleset, "ready": bool(found),
                          "waits": [w.to_json() for w in found]}, ensure_ascii=False))
        return 0
    if not found:
        print("未听牌 (not ready)")
    for w in found:
        r = w.result
        verdict = f"{r.total}" if r.valid else f"不成和: {r.message}"
        fans = " ".join(f"{f.name}{f.value}" + (f"×{f.count}" if f.count > 1 else "") for f in r.fans)
        print(f"{w.tile:>3} {w.to_json()['name']:<3} {verdict:<8} {fans}")
    return 0
