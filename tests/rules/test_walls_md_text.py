"""walls.md read as data: its own examples, table and orders, parsed from the text and checked.

tests/rules/test_walls_md.py and test_rules_examples.py restate walls.md's examples by hand; these
read `../shared/rules/walls.md` itself, so an edit there (a new row, another count, another seed
example) fails here until the ruleset files follow, rather than leaving the hand-copied numbers
agreeing with the code and not with the page. A phrase this reader does not know fails too, naming
it: teach `_WORDS` the new wording rather than skip it. Skipped where ../shared is not checked out.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from table_controller.rules import count_seat, deal_plan, load_ruleset, ruleset_ids
from table_controller.rules.dice import dice_huangfan
from table_controller.rules.seating import first_dealer_position

WALLS_MD = Path(__file__).resolve().parents[2].parent / "shared" / "rules" / "walls.md"
TEXT = WALLS_MD.read_text(encoding="utf-8") if WALLS_MD.is_file() else ""
pytestmark = pytest.mark.skipif(not TEXT, reason=f"{WALLS_MD} is not checked out")

#: walls.md's words for seats counted from the dealer (or the winner), and for honours.
SEAT_WORDS = {"dealer": "E", "the winner": "E", "下家": "S", "对家": "W", "上家": "N"}
HONOURS = {"E": "1z", "S": "2z", "W": "3z", "N": "4z", "东": "1z", "南": "2z", "西": "3z", "北": "4z",
           "白": "5z", "发": "6z", "中": "7z"}


def _section(title: str) -> str:
    """The text under `## title` up to the next `## `."""
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", TEXT, re.S | re.M)
    assert match, f"walls.md has no section {title!r}"
    return match.group(1)


def _line(section: str, start: str) -> str:
    """The bullet (with its continuation lines) of `section` that starts with `start`."""
    match = re.search(rf"^- {re.escape(start)}.*?(?=^- |^\S|\Z)", _section(section), re.S | re.M)
    assert match, f"walls.md {section!r}: no bullet starting {start!r}"
    return " ".join(match.group(0).split())


def _dice(total: int, count: int = 2) -> tuple[int, ...]:
    """Some throw of `count` dice making `total` (the larger faces first)."""
    faces = []
    for left in range(count, 0, -1):
        face = min(6, total - (left - 1))
        faces.append(face)
        total -= face
    return tuple(faces)


def _tile(stack_offset: int, layer: str, plan) -> str:
    """The position `stack_offset` stacks clockwise from k (negative: into the tail)."""
    order = plan.order
    return order[(2 * stack_offset + (0 if layer == "top" else 1)) % len(order)]


# --- Geometry and "Which wall" ------------------------------------------------------------------


def test_default_lengths_line() -> None:
    """"Default lengths: 136 tiles → 17 stacks each; 144 → 18 each; 108 → E 14, S 13, W 14, N 13":
    every ruleset file of that many tiles has those walls."""
    line = _line("Geometry (every ruleset)", "Default lengths")
    each = {int(t): int(n) for t, n in re.findall(r"(\d{3})(?: tiles)? → (\d+)(?: stacks)? each", line)}
    split = re.search(r"(\d{3}) → E (\d+), S (\d+), W (\d+), N (\d+)", line)
    assert each and split, line
    lengths = {t: (n, n, n, n) for t, n in each.items()}
    lengths[int(split.group(1))] = tuple(int(split.group(i)) for i in range(2, 6))
    assert set(lengths) == {108, 136, 144}
    for rid in ruleset_ids():
        rs = load_ruleset(rid)
        assert rs.wall_lengths == lengths[rs.tiles], rid


def test_which_wall_counts() -> None:
    """"So 1,5,9,13,17 → dealer; 2,6,10,14,18 → 下家; 3,7,11,15 → 对家; 4,8,12,16 → 上家": every total
    listed, counted from the dealer, and from each other seat the same steps on."""
    said = re.findall(r"([\d,]+) → (dealer|下家|对家|上家)", _section("Which wall: counting seats with a dice total"))
    assert len(said) == 4, said
    totals = {int(t): SEAT_WORDS[who] for group, who in said for t in group.split(",")}
    assert sorted(totals) == list(range(1, 19))  # two and three dice, every total
    steps = "ESWN"
    for total, seat in totals.items():
        assert count_seat(total) == seat, total
        for start in "SWN":
            assert count_seat(total, start) == steps[(steps.index(start) + steps.index(seat)) % 4], (total, start)


def test_first_dealer_counts_chairs_like_the_wall() -> None:
    """"1号位 throws; the sum counts positions counter-clockwise from 1号位 as above": the chair each total
    of two or three dice gives is the seat walls.md's list counts it to, chair 1 as the dealer."""
    said = re.findall(r"([\d,]+) → (dealer|下家|对家|上家)", _section("Which wall: counting seats with a dice total"))
    chair = {"dealer": 1, "下家": 2, "对家": 3, "上家": 4}
    for group, who in said:
        for total in map(int, group.split(",")):
            if total >= 2:
                assert first_dealer_position(total, dice=2 if total <= 12 else 3) == chair[who], total
    assert "1号位 throws" in _section("Choosing seats and the first dealer by dice")


# --- Dealing from the break ---------------------------------------------------------------------


def _standard_rulesets() -> list[str]:
    return [rid for rid in ruleset_ids() if load_ruleset(rid).deal.rounds == 3]


def test_standard_deal_line() -> None:
    """"three rounds in play order E, S, W, N, each grab two stacks ... so 24 stacks. Then 跳牌: E takes
    the tops of k+24 and k+26 ...; S takes the bottom of k+24; W the top of k+25; N the bottom of k+25.
    ... The first live draw after the deal is the bottom of k+26, then k+27 top, k+27 bottom", for
    every ruleset dealing 13/14 ("every ruleset below unless said": all but taiwan)."""
    line = _line("Dealing from the break", "Standard 13/14 deal")
    rounds = {"three": 3, "four": 4}[re.search(r"(three|four) rounds", line).group(1)]
    stacks = {"two": 2}[re.search(r"each grab (two) stacks", line).group(1)]
    assert f"so {4 * rounds * stacks} stacks" in line
    jump = line.split("跳牌:", 1)[1].split("E holds", 1)[0]
    takes = re.findall(r"([ESWN]) (?:takes )?the (tops?|bottom) of k\+(\d+)(?: and k\+(\d+))?", jump)
    expect_jump: list[tuple[str, str, int]] = []
    for seat, layer, a, b in takes:
        expect_jump += [(seat, layer.rstrip("s"), int(n)) for n in (a, b) if n]
    assert len(expect_jump) == 5, jump
    first_live = int(re.search(r"first live draw after the deal is the bottom of k\+(\d+)", line).group(1))
    then = re.search(r"then k\+(\d+) top, k\+(\d+) bottom", line)
    assert "E holds 14, the others 13" in line
    for rid in _standard_rulesets():
        rs = load_ruleset(rid)
        plan = deal_plan(rs, _dice(7, rs.dice_count), _dice(7) if rs.throws == 2 else None)
        grabs = [(seat, list(pos)) for seat, pos in plan.grabs]
        k = 0
        for _ in range(rounds):
            for seat in "ESWN":
                want = [_tile(k + i, layer, plan) for i in range(stacks) for layer in ("top", "bottom")]
                assert grabs.pop(0) == (seat, want), rid
                k += stacks
        tail = [(seat, p) for seat, positions in grabs for p in positions]
        assert tail == [(seat, _tile(n, layer, plan)) for seat, layer, n in expect_jump], rid
        assert {s: len(h) for s, h in plan.hands.items()} == {"E": 14, "S": 13, "W": 13, "N": 13}, rid
        live = plan.initial_state()
        if rs.indicator("laizi") is not None:  # wuhan turns that first live tile up (checked below)
            assert rs.indicator("laizi").tile == 1
            assert plan.indicators["laizi"] == _tile(first_live, "bottom", plan)
            continue
        assert live.next_draw == _tile(first_live, "bottom", plan), rid
        assert plan.live[1:3] == (_tile(int(then.group(1)), "top", plan), _tile(int(then.group(2)), "bottom", plan))


def test_sixteen_tile_deal_line() -> None:
    """"16-tile deal (台湾): four rounds of two stacks each (32 stacks), then E takes the top of k+32; the
    first live draw is the bottom of k+32"."""
    line = _line("Dealing from the break", "16-tile deal")
    assert re.search(r"four rounds of two stacks each \(32 stacks\)", line), line
    jump = int(re.search(r"E takes the top of k\+(\d+)", line).group(1))
    first = int(re.search(r"first live draw is the bottom of k\+(\d+)", line).group(1))
    rs = load_ruleset("taiwan")
    for total in range(3, 19):
        plan = deal_plan(rs, _dice(total, 3))
        assert plan.hands["E"][-1] == _tile(jump, "top", plan), total
        assert {s: len(h) for s, h in plan.hands.items()} == {"E": 17, "S": 16, "W": 16, "N": 16}
        assert plan.live[0] == _tile(first, "bottom", plan), total


def test_replacement_line() -> None:
    """"Replacement tiles ...: from the tail, the stack just counter-clockwise of k: k-1 top, k-1
    bottom, k-2 top, k-2 bottom, ...", for every ruleset and throw (fujian's 百搭, k-1 top, is turned
    up first: its replacements start at k-1 bottom)."""
    line = _line("Dealing from the break", "Replacement tiles")
    order = [(-int(n), layer) for n, layer in re.findall(r"k-(\d+) (top|bottom)", line)]
    assert order == [(-1, "top"), (-1, "bottom"), (-2, "top"), (-2, "bottom")], line
    for rid in ruleset_ids():
        rs = load_ruleset(rid)
        for total in range(rs.dice_count, 6 * rs.dice_count + 1):
            plan = deal_plan(rs, _dice(total, rs.dice_count), _dice(total) if rs.throws == 2 else None)
            want = [_tile(n, layer, plan) for n, layer in order]
            if plan.set_aside and plan.set_aside[0] == want[0]:
                want = want[1:]
            assert list(plan.tail[:len(want)]) == want, (rid, total)


# --- The procedures table ----------------------------------------------------------------------


#: The table's wording and what a ruleset file says for it. A phrase not here fails the test.
_WORDS = {
    "wall": {"the second thrower's": "second_thrower", "counted by t": "total", "counted by the sum": "total",
             "counted by the larger die": "larger_die", "counted by the smaller die": "smaller_die"},
    "count": {"s1 + s2": "both_totals", "s2 only": "second_total", "t": "total", "sum": "total",
              "the smaller die": "smaller_die", "the larger die": "larger_die"},
}


def _table_rows() -> list[list[str]]:
    rows = []
    for line in _section("The procedures").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells[0].startswith("`"):
            rows.append(cells)
    by_id = {rid: row for row in rows for rid in re.findall(r"`([a-z]+)`", row[0])}
    for row in rows:  # nanjing's dice: "like `mcr` (two throws)"
        if like := re.match(r"like `([a-z]+)`", row[3]):
            row[3] = f"{by_id[like.group(1)][3]} {row[3]}"
    return rows


def _expected(row: list[str]) -> tuple[list[str], dict[str, object]]:
    ids, _seed, tiles, dice, wall, count, mode = row
    rids = re.findall(r"`([a-z]+)`", ids)
    want: dict[str, object] = {}
    if re.fullmatch(r"\d+.*", tiles):
        want["tiles"] = int(re.match(r"\d+", tiles).group(0))
    number = re.search(r"(\d) dice", dice)
    assert number, f"walls.md {rids}: how many dice in {dice!r}?"
    want["dice_count"] = int(number.group(1))
    want["throws"] = 2 if ("throws again" in dice or "two throws" in dice) else 1
    assert wall in _WORDS["wall"], f"walls.md {rids}: unknown wall wording {wall!r}"
    want["break_wall"] = _WORDS["wall"][wall]
    assert count in _WORDS["count"], f"walls.md {rids}: unknown count wording {count!r}"
    want["break_count"] = _WORDS["count"][count]
    parts = [p.strip() for p in mode.split(";")]
    assert parts[0] in ("leave", "start_at"), f"walls.md {rids}: unknown mode {parts[0]!r}"
    want["break_mode"] = parts[0]
    want["reserve"], want["last_zone"], want["deal_rounds"] = 0, 0, 3
    for extra in parts[1:]:
        if m := re.fullmatch(r"荒牌 when (\d+) tiles \(.*\) remain", extra):
            want["reserve"] = int(m.group(1))
        elif m := re.fullmatch(r"后(\d)张必胡 on the last (\d) live tiles", extra):
            assert m.group(1) == m.group(2)
            want["last_zone"] = int(m.group(2))
        elif m := re.fullmatch(r"dead wall = the (\d+) tail stacks", extra):
            want["reserve"] = 2 * int(m.group(1))
        elif extra == "16-tile deal":
            want["deal_rounds"] = 4
        else:
            raise AssertionError(f"walls.md {rids}: unknown extra {extra!r}")
    return rids, want


def test_procedures_table_as_written() -> None:
    """Every row of "The procedures", as the text says it, against the ruleset files it names."""
    rows = _table_rows()
    assert len(rows) == 12, [r[0] for r in rows]
    named: list[str] = []
    for row in rows:
        rids, want = _expected(row)
        for rid in rids:
            rs = load_ruleset(rid)
            have = {"tiles": rs.tiles, "dice_count": rs.dice_count, "throws": rs.throws,
                    "break_wall": rs.break_wall, "break_count": rs.break_count, "break_mode": rs.break_mode,
                    "reserve": rs.reserve, "last_zone": rs.last_zone, "deal_rounds": rs.deal.rounds}
            assert {k: have[k] for k in want} == want, rid
            named.append(rid)
    assert len(named) == len(set(named)) == 15


def test_procedures_table_thrown() -> None:
    """Each row thrown with every total: the wall and the count the row's words give, counted by hand
    here from the throw (not read from the file), land where the engine breaks."""
    for row in _table_rows():
        rids, want = _expected(row)
        for rid in rids:
            rs = load_ruleset(rid)
            n = rs.dice_count
            for total in range(n, 6 * n + 1):
                first = _dice(total, n)
                second = _dice(12 - total % 11) if rs.throws == 2 else None  # a second total unlike the first
                s2 = sum(second) if second else 0
                wall = {"second_thrower": count_seat(total), "total": count_seat(total),
                        "larger_die": count_seat(max(first)), "smaller_die": count_seat(min(first))}[want["break_wall"]]
                counted = {"both_totals": total + s2, "second_total": s2, "total": total,
                           "smaller_die": min(first), "larger_die": max(first)}[want["break_count"]]
                plan = deal_plan(rs, first, second)
                ring = plan.ring
                end = (ring.wall_start(wall) + counted - 1) % ring.total  # past L: on into the next wall
                k = end + 1 if want["break_mode"] == "leave" else end
                assert plan.first_dealt == plan.order[0]
                w, number = ring.stack_at(k)
                assert plan.first_dealt == f"{w}{number:02d}t", (rid, first, second)


# --- The seeds' own examples -------------------------------------------------------------------


def _seed_examples() -> list[tuple[str, tuple[tuple[int, ...], ...], str]]:
    """(ruleset, throws, first dealt tile) from "Checks against the seeds' own examples"."""
    block = _section("The procedures").split("Checks against the seeds' own examples:", 1)[1]
    out = []
    for line in re.findall(r"^- .*$", block, re.M):
        rid = re.match(r"- `([a-z]+)`", line).group(1)
        first = re.findall(r"`([ESWN]\d\d[tb])`", line)[-1]
        if both := re.fullmatch(r".*dice (\d) and (\d) .*", line):
            throws: tuple[tuple[int, ...], ...] = ((int(both.group(1)), int(both.group(2))),)
        else:
            totals = [int(t) for t in re.findall(r"(?:throws|t =) (\d+)", line)]
            assert totals, f"walls.md example without a throw: {line}"
            throws = tuple(_dice(t) for t in totals)
        out.append((rid, throws, first))
    return out


def test_seed_examples_as_written() -> None:
    """"nanjing: dealer throws 6 → 下家 (S) throws 11 → ... S12t"; "jingji: t = 7 → ... W07t"; "hefei:
    dice 4 and 5 → ... E04t": each throw as walls.md writes it, the first dealt tile it names."""
    examples = _seed_examples()
    assert [rid for rid, _, _ in examples] == ["nanjing", "jingji", "hefei"]
    for rid, throws, first in examples:
        plan = deal_plan(load_ruleset(rid), throws[0], throws[1] if len(throws) > 1 else None)
        assert plan.first_dealt == first, (rid, throws)


# --- Indicators and tiles read off the wall ----------------------------------------------------


def _chains(text: str) -> dict[str, str]:
    """"winds E→S→W→N→E, dragons 白→发→中→白" → {"1z": "2z", ...}; "(skipping 中)" is a remark."""
    text = re.sub(r"\([^)]*\)", "", text)
    out: dict[str, str] = {}
    for chain in re.findall(r"[ESWN东南西北白发中](?:→[ESWN东南西北白发中])+", text):
        names = chain.split("→")
        for a, b in zip(names, names[1:]):
            assert out.get(HONOURS[a], HONOURS[b]) == HONOURS[b], f"walls.md gives {a} two next kinds"
            out[HONOURS[a]] = HONOURS[b]
    return out


@pytest.mark.parametrize("rid, name, bullet", [
    ("riichi", "dora", "`riichi` 宝牌"),
    ("fujian", "baida", "`fujian` 百搭"),
    ("wuhan", "laizi", "`wuhan` 癞子"),
])
def test_indicator_orders_as_written(rid: str, name: str, bullet: str) -> None:
    """Each honour order written with arrows is the ruleset's next kind; suits wrap 9→1."""
    line = _line("Indicators and tiles read off the wall", bullet)
    written = _chains(line)
    assert len(written) == 7, written
    rs = load_ruleset(rid)
    for shown, nxt in written.items():
        assert rs.indicator_kinds(name, shown)["next"] == nxt, (rid, shown)
    assert "9→1" in line or "1–9 wrap" in line
    assert rs.indicator_kinds(name, "9m")["next"] == "1m"
    if "is never 癞子" in line:
        never = HONOURS[re.search(r"(红中|中) is never", line).group(1)[-1]]
        assert all(rs.indicator_kinds(name, k)["next"] != never for k in rs.tile_spec.kinds())


def test_indicator_positions_as_written() -> None:
    """riichi "stacks 1–2 are the replacement (岭上) tiles, the indicator is the top of the 3rd stack";
    fujian "the first tail tile (k-1 top) is turned face up"; wuhan "the first live tile after the deal
    is turned up", for every throw."""
    riichi = _line("Indicators and tiles read off the wall", "`riichi` 宝牌")
    third = re.search(r"top of the (\d)(?:st|nd|rd|th) stack", riichi)
    spare = re.search(r"stacks 1–(\d) are the replacement", riichi)
    assert third and spare, riichi
    assert re.search(r"\(k-1 top\) is turned face up", _line("Indicators and tiles read off the wall", "`fujian`"))
    assert "first live tile after the deal is turned up" in _line("Indicators and tiles read off the wall", "`wuhan`")
    for total in range(2, 13):
        plan = deal_plan(load_ruleset("riichi"), _dice(total))
        assert plan.indicators["dora"] == _tile(-int(third.group(1)), "top", plan), total
        assert list(plan.tail) == [_tile(-n, layer, plan) for n in range(1, int(spare.group(1)) + 1)
                                   for layer in ("top", "bottom")], total
        fujian = deal_plan(load_ruleset("fujian"), _dice(total))
        assert fujian.indicators["baida"] == _tile(-1, "top", fujian), total
        wuhan = deal_plan(load_ruleset("wuhan"), _dice(total))
        assert wuhan.indicators["laizi"] == wuhan.order[wuhan.ruleset.deal.dealt_tiles], total


def test_horses_as_written() -> None:
    """tuidaohu: "1,5,9,东,中 → the winner; 2,6,南,发 → 下家; 3,7,西,白 → 对家; 4,8,北 → 上家", from each
    winner."""
    line = _line("Indicators and tiles read off the wall", "`tuidaohu` 买马")
    groups = re.findall(r"([\d东南西北中发白,]+) → (the winner|下家|对家|上家)", line)
    assert len(groups) == 4, groups
    rule = load_ruleset("tuidaohu").hand_end
    steps = "ESWN"
    for group, who in groups:
        for value in group.split(","):
            kinds = [f"{value}{s}" for s in "mps"] if value.isdigit() else [HONOURS[value]]
            for kind in kinds:
                for winner in steps:
                    want = steps[(steps.index(winner) + steps.index(SEAT_WORDS[who])) % 4]
                    assert rule.seat_for(kind, winner) == want, (kind, winner)


def test_fishing_as_written() -> None:
    """nanning: "honours in the order 东南西北中发白 (1..7)"; "the last three tiles"."""
    line = _line("Indicators and tiles read off the wall", "`nanning` 钓鱼")
    order = re.search(r"honours in the order ([东南西北中发白]{7}) \(1\.\.7\)", line)
    assert order and "last three tiles" in line, line
    rule = load_ruleset("nanning").hand_end
    assert rule.tiles == 3
    for value, honour in enumerate(order.group(1), start=1):
        assert rule.value(HONOURS[honour]) == value, honour


def test_huangfan_as_written() -> None:
    """shanghai: "(1,1) or (4,4) → +2; (1,n) n=2..6, (4,n) n≠4, (2,2), (3,3), (5,5), (6,6) → +1;
    otherwise 0"."""
    line = _line("Indicators and tiles read off the wall", "`shanghai`")
    two, one = re.search(r": (.*?) → \+2; (.*?) → \+1; otherwise 0", line).groups()
    pairs2 = {tuple(map(int, p)) for p in re.findall(r"\((\d),(\d)\)", two)}
    pairs1 = {tuple(map(int, p)) for p in re.findall(r"\((\d),(\d)\)", one)}
    for a in (int(x) for x in re.findall(r"\((\d),n\) n=2\.\.6", one)):
        pairs1 |= {(a, n) for n in range(2, 7)}
    for a in (int(x) for x in re.findall(r"\((\d),n\) n≠\d", one)):
        skip = int(re.search(rf"\({a},n\) n≠(\d)", one).group(1))
        pairs1 |= {(a, n) for n in range(1, 7) if n != skip}
    assert pairs2 == {(1, 1), (4, 4)} and len(pairs1) == 14, (pairs2, pairs1)
    for a in range(1, 7):
        for b in range(1, 7):
            want = 2 if {(a, b), (b, a)} & pairs2 else 1 if {(a, b), (b, a)} & pairs1 else 0
            assert dice_huangfan((a, b)) == want, (a, b)


def test_dealer_by_as_written() -> None:
    """"1号位 throws; the sum counts positions ..." for every ruleset of the table, except those walls.md names in
    "`sichuan`: each player throws once; the highest total deals" (`[dice] dealer_by`)."""
    section = _section("Choosing seats and the first dealer by dice")
    highest = set(re.findall(r"^- `([a-z]+)`: each player throws once; the highest total deals", section, re.M))
    assert highest == {"sichuan"}, highest
    for row in _table_rows():
        for rid in _expected(row)[0]:
            assert load_ruleset(rid).dealer_by == ("highest" if rid in highest else "count"), rid
