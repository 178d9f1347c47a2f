"""日本麻将 (riichi): the scorer against the `mahjong` package called directly, on seeded random hands.

`scoring/riichi.py` wraps the package; this test translates the same hand JSON to the package's
arguments independently (its own tile ids, melds, flags and the riichi.toml options) and compares the
verdict, han, fu, yaku, limit and every seat's payment. It also holds the package's fu to the standard
fu rules computed here (20 base, +10 closed ron, 2 tsumo but pinfu, wait 2 for kanchan / penchan /
tanki, the best reading of the winning tile, sets by kind, 役牌 pairs, round up to 10; pinfu 20/30,
七对子 25, open pinfu shape 30), so a defect of either would show.

Excluded on purpose (docs/scoring.md: the standard scoring as the package computes it):
- kazoe (13+ han from ordinary yaku) is a yakuman, the package's default (天凤); WRC/EMA cap it at
  三倍满. The project documents the package's choice, so both sides agree and nothing is excluded.
- 双风雀头 (a pair of the seat wind that is also the round wind) is 4 fu in the package (天凤, JPML);
  WRC counts 2. The fu check follows the package.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from table_controller.scoring import score_json

pytest.importorskip("mahjong")

from mahjong.constants import EAST  # noqa: E402
from mahjong.hand_calculating.hand import HandCalculator  # noqa: E402
from mahjong.hand_calculating.hand_config import HandConfig, OptionalRules  # noqa: E402
from mahjong.meld import Meld  # noqa: E402

SEATS = ("E", "S", "W", "N")
KINDS = [f"{r}{s}" for s in "mps" for r in range(1, 10)] + [f"{r}z" for r in range(1, 8)]
TERMINALS_HONOURS = ["1m", "9m", "1p", "9p", "1s", "9s"] + [f"{r}z" for r in range(1, 8)]
HANDS = 1500
#: Yaku that hang on how the hand is read: with one of them a reading of fewer fu may score more.
READING_YAKU = {"Pinfu", "Iipeiko", "Ryanpeikou", "San Ankou", "Suu Ankou", "Toitoi", "Sanshoku Doujun",
                "Sanshoku Doukou", "Ittsu", "Chantai", "Junchan", "Chiitoitsu"}
SEED = 20260


def _idx(code: str) -> int:
    r, s = int(code[:-1]), code[-1]
    return {"m": 0, "p": 9, "s": 18, "z": 27}[s] + r - 1


def _succ(code: str) -> str:
    """The dora an indicator shows: the next kind (9 → 1, 北 → 东, 中 → 白)."""
    r, s = int(code[:-1]), code[-1]
    if s != "z":
        return f"{r % 9 + 1}{s}"
    return f"{r % 4 + 1}z" if r <= 4 else f"{(r - 4) % 3 + 5}z"


# ---- the generator -------------------------------------------------------------------------------

def _set_tiles(kind: str, code: str) -> list[str]:
    r, s = int(code[:-1]), code[-1]
    if kind == "chi":
        return [f"{r + i}{s}" for i in range(3)]
    return [code] * (4 if kind == "kan" else 3)


def _standard(rng: random.Random, pool: list[str]) -> tuple[list[tuple[str, list[str]]], list[str]] | None:
    """Four sets and a pair over `pool` (a suit or two and honours, or all: flushes and yaku come often)."""
    used: Counter[str] = Counter()
    sets: list[tuple[str, list[str]]] = []
    for _ in range(4):
        for _try in range(20):
            kind = rng.choices(["chi", "pon", "kan"], [6, 3, 1])[0]
            starts = [c for c in pool if kind != "chi" or (c[-1] != "z" and int(c[:-1]) <= 7)]
            if not starts:
                continue
            tiles = _set_tiles(kind, rng.choice(starts))
            if all(used[t] + tiles.count(t) <= 4 for t in set(tiles)):
                used.update(tiles)
                sets.append((kind, tiles))
                break
        else:
            return None
    pairs = [c for c in pool if used[c] <= 2]
    if not pairs:
        return None
    pair = rng.choice(pairs)
    return sets, [pair, pair]


def random_hand(rng: random.Random) -> dict[str, Any] | None:
    """One complete riichi hand as the scorer's JSON (docs/scoring.md), or None where a draw failed."""
    pool = KINDS
    shape = rng.choices(["standard", "chiitoitsu", "kokushi"], [86, 10, 4])[0]
    if rng.random() < 0.35:  # one suit (and honours, some of the time): 混一色 / 清一色 / 九莲
        suit = rng.choice("mps")
        pool = [c for c in KINDS if c[-1] == suit] + ([c for c in KINDS if c[-1] == "z"] if rng.random() < 0.5 else [])
    elif rng.random() < 0.15:
        pool = [c for c in KINDS if c[-1] == "z" or c[0] in "19"]  # 混老头, 字一色, 大三元 ...
    elif rng.random() < 0.2:
        pool = [c for c in KINDS if c[-1] != "z" and c[0] not in "19"]  # 断幺九
    melds: list[dict[str, Any]] = []
    seat = rng.choice(SEATS)
    left = SEATS[SEATS.index(seat) - 1]  # 上家: a chow's only source
    other = rng.choice([s for s in SEATS if s != seat])
    if shape == "standard":
        drawn = _standard(rng, pool)
        if drawn is None:
            return None
        sets, pair = drawn
        n_called = rng.choices([0, 1, 2, 3, 4], [45, 20, 15, 12, 8])[0]
        concealed: list[str] = list(pair)
        for i, (kind, tiles) in enumerate(sets):
            if kind == "kan" or i < n_called:
                if kind == "kan":
                    closed = rng.random() < 0.4
                    melds.append({"type": "kong", "tiles": tiles, "concealed": closed, **({} if closed else {"from": other})})
                else:
                    melds.append({"type": "chi" if kind == "chi" else "pung", "tiles": tiles,
                                  "from": left if kind == "chi" else other})
            else:
                concealed += tiles
    elif shape == "chiitoitsu":
        kinds = rng.sample([c for c in pool] if len(pool) >= 7 else KINDS, 7)
        concealed = [c for c in kinds for _ in range(2)]
    else:
        concealed = TERMINALS_HONOURS + [rng.choice(TERMINALS_HONOURS)]
    win_tile = rng.choice(concealed)
    concealed.remove(win_tile)
    closed = all(m.get("concealed") for m in melds)
    has_kan = any(m["type"] == "kong" for m in melds)
    held = Counter(concealed + [win_tile] + [t for m in melds for t in m["tiles"]])
    wins = ["self_draw", "discard"] + (["kong_replacement"] if has_kan else []) + (["rob_kong"] if held[win_tile] == 1 else [])
    win = rng.choices(wins, [5, 5, 2, 1][:len(wins)])[0]
    hand: dict[str, Any] = {"seat_wind": seat, "prevalent_wind": rng.choice("EESSWN"), "concealed": concealed,
                            "win_tile": win_tile, "win": win, "melds": melds, "last_tile": rng.random() < 0.08}
    if win in ("discard", "rob_kong"):
        hand["discarder"] = rng.choice([s for s in SEATS if s != seat])
    options: dict[str, Any] = {}
    if closed and rng.random() < 0.5:
        options["double_riichi" if rng.random() < 0.1 else "riichi"] = True
        if rng.random() < 0.25:
            options["ippatsu"] = True
    if closed and not options and rng.random() < 0.06 and win in ("self_draw", "discard"):
        options["first_turn"] = True  # 天和 / 地和 / 人和 (none for a dealer's ron or after a 暗杠)
    free = Counter({k: 4 for k in KINDS}) - held
    for key, n in (("dora", rng.choice([0, 1, 1, 2, 3])),
                   ("ura_dora", rng.choice([0, 1, 2]) if options.get("riichi") or options.get("double_riichi") else 0)):
        shown = []
        for _ in range(n):
            choices = sorted(free.elements())
            if choices:
                t = rng.choice(choices)
                free[t] -= 1
                shown.append(t)
        if shown:
            options[key] = shown
    if rng.random() < 0.3:
        options["honba"] = rng.randint(1, 4)
    if options:
        hand["options"] = options
    return hand


# ---- the package called directly ----------------------------------------------------------------

def reference(hand: dict[str, Any]) -> dict[str, Any]:
    """The package's verdict on `hand`, with riichi.toml's options (食断 on, 切上满贯 off, no red fives;
    the package's own defaults for double yakuman and kazoe), as {valid, han, fu, yaku, level, payments}."""
    copies: Counter[int] = Counter()

    def tid(code: str) -> int:
        i = _idx(code)
        copies[i] += 1
        return i * 4 + copies[i] - 1

    melds, tiles = [], []
    for m in hand["melds"]:
        ids = [tid(t) for t in m["tiles"]]
        kind = {"chi": Meld.CHI, "pung": Meld.PON, "kong": Meld.KAN}[m["type"]]
        melds.append(Meld(meld_type=kind, tiles=ids, opened=not m.get("concealed", False)))
        tiles += ids
    tiles += [tid(t) for t in hand["concealed"]]
    win = tid(hand["win_tile"])
    tiles.append(win)
    opts = hand.get("options", {})
    dora = [tid(t) for t in opts.get("dora", [])]
    ura = [tid(t) for t in opts.get("ura_dora", [])]
    how, seat, last = hand["win"], hand["seat_wind"], hand["last_tile"]
    tsumo = how in ("self_draw", "kong_replacement")
    first = bool(opts.get("first_turn")) and not melds  # a 暗杠 ends the first go-round too
    config = HandConfig(
        is_tsumo=tsumo, is_riichi=bool(opts.get("riichi")), is_daburu_riichi=bool(opts.get("double_riichi")),
        is_ippatsu=bool(opts.get("ippatsu")), is_rinshan=how == "kong_replacement", is_chankan=how == "rob_kong",
        # 海底 is the last live draw, 河底 the discard after it: a 岭上 tile is neither, and no kong may
        # be added (so robbed) on the 海底 draw (WRC, JPML, 天凤: 岭上开花 and 海底 never combine).
        is_haitei=last and how == "self_draw", is_houtei=last and how == "discard",
        is_tenhou=first and tsumo and seat == "E", is_chiihou=first and tsumo and seat != "E",
        is_renhou=first and not tsumo and seat != "E", player_wind=EAST + SEATS.index(seat),
        round_wind=EAST + SEATS.index(hand["prevalent_wind"]), tsumi_number=opts.get("honba", 0),
        options=OptionalRules(has_open_tanyao=True, has_aka_dora=False, kiriage=False),
    )
    res = HandCalculator().estimate_hand_value(tiles, win, melds=melds, dora_indicators=dora,
                                               ura_dora_indicators=ura, config=config)
    if res.error:
        return {"valid": False, "error": res.error}
    cost = res.cost
    payments = dict.fromkeys(SEATS, 0)
    if tsumo:
        for s in SEATS:
            if s != seat:
                dealer_share = seat == "E" or s == "E"
                payments[s] = -(cost["main"] + cost["main_bonus"] if dealer_share
                                else cost["additional"] + cost["additional_bonus"])
    else:
        payments[hand["discarder"]] = -(cost["main"] + cost["main_bonus"])
    payments[seat] = -sum(payments.values())
    return {"valid": True, "han": res.han, "fu": res.fu, "yaku": sorted(y.name for y in res.yaku),
            "level": cost["yaku_level"], "payments": payments, "fu_details": res.fu_details}


def project(hand: dict[str, Any]) -> dict[str, Any]:
    r = score_json(hand, "riichi")
    if not r["valid"]:
        return {"valid": False, "error": r["reason"]}
    return {"valid": True, "han": r["han"], "fu": r["fu"], "yaku": sorted(f["name_en"] for f in r["fans"]),
            "level": r["level"], "payments": {s: r["payments"].get(s, 0) for s in SEATS}}


# ---- standard fu, computed here ----------------------------------------------------------------

def _divisions(counts: Counter[str]) -> list[list[tuple[str, str]]]:
    """Every way to read the concealed 14 - 3k tiles as sets ("chi"/"pon" by lowest tile) and one pair."""
    out: list[list[tuple[str, str]]] = []

    def sets(c: Counter[str], acc: list[tuple[str, str]]) -> None:
        left = sorted((k for k, n in c.items() if n), key=_idx)
        if not left:
            out.append(list(acc))
            return
        t = left[0]
        if c[t] >= 3:
            c[t] -= 3
            sets(c, acc + [("pon", t)])
            c[t] += 3
        r, s = int(t[:-1]), t[-1]
        if s != "z" and r <= 7 and c[f"{r + 1}{s}"] and c[f"{r + 2}{s}"]:
            for k in (t, f"{r + 1}{s}", f"{r + 2}{s}"):
                c[k] -= 1
            sets(c, acc + [("chi", t)])
            for k in (t, f"{r + 1}{s}", f"{r + 2}{s}"):
                c[k] += 1

    for p in sorted((k for k, n in counts.items() if n >= 2), key=_idx):
        c = Counter(counts)
        c[p] -= 2
        sets(c, [("pair", p)])
    return out


def _is_yaochu(code: str) -> bool:
    return code[-1] == "z" or code[0] in "19"


def standard_fu(hand: dict[str, Any]) -> set[int]:
    """Every fu a reading of the hand (division and the set the winning tile completes) gives by the
    standard rules, pinfu's 20/30 included; 七对子 25."""
    concealed = Counter(hand["concealed"] + [hand["win_tile"]])
    tsumo = hand["win"] in ("self_draw", "kong_replacement")
    is_open = any(not m.get("concealed") for m in hand["melds"])
    meld_fu = 0
    for m in hand["melds"]:
        t = m["tiles"][0]
        if m["type"] == "chi":
            continue
        base = 2 if m["type"] == "pung" else (16 if m.get("concealed") else 8)
        meld_fu += base * (2 if _is_yaochu(t) else 1)
    out: set[int] = set()
    if not hand["melds"] and sum(concealed.values()) == 14 and all(n == 2 for n in concealed.values()):
        out.add(25)
    w = hand["win_tile"]
    for division in _divisions(concealed):
        pair = division[0][1]
        pair_fu = 2 * (pair in {"5z", "6z", "7z"}) + 2 * (pair == f"{SEATS.index(hand['seat_wind']) + 1}z") \
            + 2 * (pair == f"{SEATS.index(hand['prevalent_wind']) + 1}z")
        for i, (kind, t) in enumerate(division):
            r = int(t[:-1])
            covers = (kind == "pair" and t == w) or (kind == "pon" and t == w) or \
                (kind == "chi" and w[-1] == t[-1] and r <= int(w[:-1]) <= r + 2)
            if not covers:
                continue
            wait = 0
            if kind == "pair":
                wait = 2
            elif kind == "chi":
                wr = int(w[:-1])
                wait = 2 if wr == r + 1 or (r == 1 and wr == 3) or (r == 7 and wr == 7) else 0
            sets_fu = meld_fu
            for j, (k2, t2) in enumerate(division[1:], 1):
                if k2 == "pon":
                    closed = not (j == i and not tsumo)  # a triplet completed by ron is an open one
                    sets_fu += (4 if closed else 2) * (2 if _is_yaochu(t2) else 1)
            fu = 20 + sets_fu + wait + pair_fu
            all_chi = sets_fu == 0 and all(k != "pon" for k, _ in division[1:]) and \
                all(m["type"] == "chi" for m in hand["melds"])
            pinfu_shape = all_chi and wait == 0 and pair_fu == 0
            if pinfu_shape and not is_open:
                out.add(20 if tsumo else 30)  # pinfu
                continue
            if tsumo:
                fu += 2
            elif not is_open:
                fu += 10
            if pinfu_shape and is_open:
                out.add(30)  # open pinfu shape: 30 fu
                continue
            out.add(-(-fu // 10) * 10)
    return out


def standard_payments(hand: dict[str, Any], han: int, fu: int, kazoe: bool = False) -> dict[str, int]:
    """Who pays what by the point tables: base fu × 2^(han+2), 2000 from mangan up (满贯 5, 跳满 6–7,
    倍满 8–10, 三倍满 11–12, 役满 13 per yakuman, kazoe at 13); ron ×4 (dealer ×6), tsumo 1/2 each
    (the dealer's share 2) to the 100 up; 本场 300 a ron, 100 from each on a tsumo."""
    if han >= 13:
        base = 8000 if kazoe else 8000 * (han // 13)  # kazoe: one yakuman however many han
    elif han >= 5:
        base = {5: 2000, 6: 3000, 7: 3000, 8: 4000, 9: 4000, 10: 4000, 11: 6000, 12: 6000}[han]
    else:
        base = min(fu * 2 ** (han + 2), 2000)
    seat, honba = hand["seat_wind"], hand.get("options", {}).get("honba", 0)
    up = lambda x: -(-x // 100) * 100  # noqa: E731
    out = dict.fromkeys(SEATS, 0)
    if hand["win"] in ("self_draw", "kong_replacement"):
        for s in SEATS:
            if s != seat:
                out[s] = -(up(base * (2 if seat == "E" or s == "E" else 1)) + 100 * honba)
    else:
        out[hand["discarder"]] = -(up(base * (6 if seat == "E" else 4)) + 300 * honba)
    out[seat] = -sum(out.values())
    return out


def _compare(hand: dict[str, Any]) -> list[str]:
    """The disagreements on one hand, in words (none: [])."""
    mine, ref = project(hand), reference(hand)
    problems = []
    if mine["valid"] != ref["valid"]:
        return [f"verdict {mine} vs package {ref}"]
    if not ref["valid"]:
        return []
    for key in ("han", "fu", "yaku", "level", "payments"):
        if mine[key] != ref[key]:
            problems.append(f"{key}: project {mine[key]!r} vs package {ref[key]!r}")
    yakuman = ref["han"] >= 13 and ref["level"] != "kazoe yakuman"
    readings = standard_fu(hand)
    if not yakuman and ref["fu"] and ref["fu"] not in readings:
        problems.append(f"fu {ref['fu']} not among the standard readings {sorted(readings)}")
    elif not yakuman and ref["fu"] and not READING_YAKU & set(ref["yaku"]) and ref["fu"] != max(readings):
        problems.append(f"fu {ref['fu']}, not the best reading's {max(readings)}")  # han alike, so the most fu
    table = standard_payments(hand, ref["han"], ref["fu"], ref["level"] == "kazoe yakuman")
    if ref["payments"] != table:
        problems.append(f"payments {ref['payments']} not the table's {table}")
    dora = Counter(_succ(t) for t in hand.get("options", {}).get("dora", []))
    held = hand["concealed"] + [hand["win_tile"]] + [t for m in hand["melds"] for t in m["tiles"]]
    n_dora = sum(dora[t] for t in held)
    if not yakuman and n_dora != next((ref_han for name, ref_han in _dora(hand) if name == "Dora"), 0):
        problems.append(f"dora: {n_dora} by the indicators, the package {_dora(hand)}")
    return problems


def _dora(hand: dict[str, Any]) -> list[tuple[str, int]]:
    r = score_json(hand, "riichi")
    return [(f["name_en"], f["value"]) for f in r.get("fans", []) if f["name_en"] in ("Dora", "Ura Dora")]


def hands(n: int, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    while len(out) < n:
        h = random_hand(rng)
        if h is not None:
            out.append(h)
    return out


def test_scorer_agrees_with_the_package_and_the_fu_rules() -> None:
    bad = [(h, p) for h in hands(HANDS, SEED) if (p := _compare(h))]
    assert not bad, f"{len(bad)} of {HANDS} disagree; first: {bad[0]}"


if __name__ == "__main__":  # a longer run: python -m tests.scoring.test_riichi_differential [n] [seed]
    import sys

    n, seed = (int(a) for a in (sys.argv[1:] + ["20000", "1"])[:2])
    classes: Counter[str] = Counter()
    examples: dict[str, Any] = {}
    valid = 0
    for h in hands(n, seed):
        p = _compare(h)
        valid += project(h)["valid"]
        for line in p:
            key = line.split(":")[0].split(" ")[0] + (" " + line.split("'")[1] if "verdict" in line and "'" in line else "")
            classes[key] += 1
            examples.setdefault(key, (h, line))
    print(f"{n} hands, {valid} valid wins by the project; disagreements: {dict(classes)}")
    for key, (h, line) in examples.items():
        print(key, "::", line, "\n   ", h)
