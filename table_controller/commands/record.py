"""`tablectl record`: the hand record (牌谱) of a table's session, read from its event log."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "record", help="从牌桌的事件记录打印一盘的牌谱 / print a hand's record (牌谱) from a table's event log",
        description="从牌桌保存的事件记录（其 --data-dir）打印一盘的牌谱：座位、骰子和开门、按顺序的每一步、和牌及其番种和"
                    "支付、罚分和得分。不加 --hand 或 --all 时列出记录中的各盘。公开牌谱不含暗牌；--referee 加上读到的手牌。"
                    "记录或该盘不存在时以 2 退出。 / "
                    "Print the record of a hand from the event log a table keeps (its --data-dir): "
                    "who sat where, the dice and the break, every play in order, the wins with their "
                    "fans and payments, penalties and the score. Without --hand or --all, the hands the log holds. "
                    "The public record holds no concealed tile; --referee adds the hands as read. "
                    "A missing log or hand exits 2.",
        epilog="example: tablectl record --data-dir data --hand 3")
    parser.add_argument("--data-dir", type=Path, default=Path("data"),
                        help="events.sqlite3 所在目录（默认 ./data） / where events.sqlite3 is (default: ./data)")
    parser.add_argument("--hand", type=int, metavar="N", help="盘号 / the hand number")
    parser.add_argument("--round", type=int, metavar="R",
                        help="比赛牌桌的轮次（默认：最近一轮） / the round (轮次) of a tournament table (default: the latest)")
    parser.add_argument("--all", action="store_true",
                        help="按顺序输出每盘的牌谱（本轮的；不加 --round 时为所有轮次） / every hand's record, in order (the "
                             "round's 牌谱; every round's without --round)")
    parser.add_argument("--referee", action="store_true", help="附上和牌或查叫时读到的手牌 / with the hands read at a win or at 查叫")
    parser.add_argument("--json", action="store_true", help="输出一个 JSON 对象 / print one JSON object")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from table_controller import rounds
    from table_controller.record import RecordError, all_records, as_text, hand_numbers, hand_record, session_records
    from table_controller.state import UnknownRuleset, fold
    from table_controller.store import LogTooNew, NotALog, StoreError, read_events

    path = args.data_dir / "events.sqlite3"
    if not path.is_file():
        print(f"没有事件日志 / no event log at {path}", file=sys.stderr)
        return 2
    damaged = ("; 记录已损坏 / the log is damaged: the table's service salvages it at its next start "
               "(docs/display.md), or read the mirror's copy (--data-dir MIRROR_DIR)")
    try:  # read-only: a reader never writes the log (nor another program's SQLite file in its place)
        events = read_events(path)
    except StoreError as exc:
        print(f"tablectl record: {exc}{'' if isinstance(exc, (LogTooNew, NotALog)) else damaged}", file=sys.stderr)
        return 2
    try:
        state = fold(events)
    except UnknownRuleset as exc:
        print(f"tablectl record: {exc}", file=sys.stderr)
        return 2
    try:
        if args.all:
            records = (session_records(events, referee=args.referee, state=state, round_no=args.round)
                       if args.round is not None else all_records(events, referee=args.referee, state=state))
            sys.stdout.write(json.dumps(records, ensure_ascii=False) + "\n" if args.json
                             else "\n".join(as_text(r) for r in records))
            return 0
        if args.hand is None:
            mine = rounds.events_of(events, state, args.round)
            hands = hand_numbers(mine)
            number = args.round or state.round
            print(json.dumps({"round": number, "rounds": rounds.numbers(state), "hands": hands}) if args.json else
                  (f"第 {number} 轮 第 {', '.join(str(n) for n in hands)} 盘" if hands
                   else f"第 {number} 轮没有牌局 / no hands in round {number}"))
            return 0
        record = hand_record(events, args.hand, referee=args.referee, state=state, round_no=args.round)
    except (RecordError, rounds.RoundError) as exc:
        print(str(exc), file=sys.stderr)
        return 2
    sys.stdout.write(json.dumps(record, ensure_ascii=False) + "\n" if args.json else as_text(record))
    return 0
