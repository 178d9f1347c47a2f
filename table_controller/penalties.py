"""Penalty catalogues (罚分) as data from each ruleset's `[penalties]` table, and what a penalty costs.

The amounts are the rule texts' (see the TOML comments for the seed each comes from); this module
only reads them and turns one ruling into points per seat, so the fold and the API agree on it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal, Mapping

from table_controller.rules.ruleset import folder, in_use

SEATS = ("E", "S", "W", "N")
Pays = Literal["dead", "each", "victim", "tsumo", "standing"]
#: What `pays` may say: "dead" (盘外死分), "each" (to each other seat), "victim" (to one seat), "tsumo" (riichi's 满贯罚符:
#: a tsumo of `amount` lost, the dealer E paid half and each other a quarter; a dealer offender pays each other half),
#: "standing" (the session's standing only: WRC 7.1's point penalty, off the overall score, the table's points unmoved)
PAYS = ("dead", "each", "victim", "tsumo", "standing")


class PenaltyError(ValueError):
    """A ruling that the catalogue does not allow; the message says why, Chinese first."""


@dataclass(frozen=True)
class Penalty:
    """One entry of a catalogue: who pays whom, and how much (fixed, escalating or referee-chosen)."""

    code: str
    name_zh: str
    name_en: str
    pays: Pays = "dead"
    amount: int | None = None
    amounts: tuple[int, ...] = ()
    min: int | None = None
    max: int | None = None
    step: int = 1
    stops_win: bool = False
    disqualify: bool = False
    #: the hand is dealt again (riichi's 错和): ruled after the hand ended 荒牌 or 流局, it may be ended again 中止
    redeal: bool = False
    rule_zh: str = ""
    #: the points are the scorer's (`scoring.false_win`: 四川 诈和 "和多少罚多少"): the referee gives
    #: the 番 the seat declared, and each seat still playing is paid what that hand would have won
    from_scoring: bool = False

    @property
    def chosen(self) -> bool:
        """The referee chooses the amount within `min`..`max`."""
        return self.min is not None

    def amount_for(self, previous: int, chosen: int | None = None) -> int:
        """Points for this offence, after `previous` offences of the same kind by the seat this hand."""
        if self.chosen:
            assert self.min is not None and self.max is not None
            if chosen is None:
                raise PenaltyError(f"{self.name_zh}：须由裁判给出罚分 {self.min}–{self.max} / amount required")
            if not (self.min <= chosen <= self.max) or (chosen - self.min) % self.step:
                raise PenaltyError(f"{self.name_zh}：罚分须在 {self.min}–{self.max} 之间、以 {self.step} 为单位"
                                   f" / amount must be {self.min}..{self.max} in steps of {self.step}")
            return chosen
        if chosen is not None:
            raise PenaltyError(f"{self.name_zh}：罚分由规则确定，不能指定 / the amount is fixed by the rules")
        if self.amounts:
            if previous < len(self.amounts):
                return self.amounts[previous]
            # "以此类推": each further offence doubles the last amount
            return self.amounts[-1] * 2 ** (previous - len(self.amounts) + 1)
        return self.amount or 0

    def deltas(self, seat: str, amount: int, victim: str | None = None) -> dict[str, int]:
        """Points per wind for one ruling; "dead" points leave the table (盘外死分); "standing" moves none of
        the table's (`standing_of`)."""
        out = {s: 0 for s in SEATS}
        if self.pays == "standing":
            return out
        if self.pays == "tsumo":
            if amount % 4:
                raise PenaltyError(f"{self.name_zh}：罚分须能按自摸分摊（4 的倍数），不是 {amount} / "
                                   f"the amount must split as a tsumo (a multiple of 4), not {amount}")
            for s in SEATS:
                if s != seat:
                    # as a tsumo lost: the dealer (E) gets half, the others a quarter; a dealer pays each half
                    share = amount // 2 if "E" in (s, seat) else amount // 4
                    out[s] += share
                    out[seat] -= share
        elif self.pays == "each":
            for s in SEATS:
                if s != seat:
                    out[s] += amount
                    out[seat] -= amount
        elif self.pays == "victim":
            if victim is None or victim == seat or victim not in SEATS:
                raise PenaltyError(f"{self.name_zh}：须指定受损的另一家 / name the harmed seat (victim)")
            out[victim] += amount
            out[seat] -= amount
        else:
            out[seat] -= amount
        return out

    def standing_of(self, amount: int) -> int:
        """Points taken off the offender's session standing instead of the table (`pays = "standing"`), else 0."""
        return amount if self.pays == "standing" else 0

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "name_zh": self.name_zh, "name_en": self.name_en, "pays": self.pays,
                "amount": self.amount, "amounts": list(self.amounts), "min": self.min, "max": self.max,
                "step": self.step, "stops_win": self.stops_win, "disqualify": self.disqualify, "redeal": self.redeal,
                "rule_zh": self.rule_zh, "from_scoring": self.from_scoring}


#: Entries every catalogue has: a recorded warning, and a ruling the rule text leaves to the referee.
UNIVERSAL = (
    Penalty("warning", "警告", "Warning", amount=0, rule_zh="明显有违例犯规干扰比赛的言行，由裁判员当场给予警告"),
    Penalty("other", "其他（裁判裁定）", "Other (referee's ruling)", min=0, max=100, step=1,
            rule_zh="规则未列明的情形，由裁判员现场裁定罚分"),
)


@dataclass(frozen=True)
class Catalogue:
    ruleset: str
    source: str
    items: tuple[Penalty, ...]

    def get(self, code: str) -> Penalty:
        for p in self.items:
            if p.code == code:
                return p
        known = ", ".join(p.code for p in self.items)
        raise PenaltyError(f"未知的罚则 {code!r} / unknown penalty code; allowed: {known}")

    def to_json(self) -> dict[str, Any]:
        from table_controller.rules.sources import cite

        # the referee reads 出处 by the rule text's title, not the project's seed number
        return {"ruleset": self.ruleset, "source": cite(self.source), "items": [p.to_json() for p in self.items]}


#: Each key of an entry and what it holds: text, a whole number of points (0 or more), or true/false.
_TEXT, _POINTS, _SWITCH = ("code", "name_zh", "name_en", "pays", "rule_zh"), ("amount", "min", "max", "step"), \
    ("stops_win", "disqualify", "from_scoring", "redeal")


def _entry_problem(raw: Mapping[str, Any]) -> str | None:
    """What an entry of a ruleset's file lacks or holds of the wrong kind, Chinese first, or None: a missing
    `name_en` or an `amount = "10"` passed the file's read and `tablectl check`, and the service's every state of
    the display then answered 500 (a TypeError in the catalogue)."""
    def points(v: Any) -> bool:
        return isinstance(v, int) and not isinstance(v, bool) and v >= 0

    missing = [k for k in ("code", "name_zh", "name_en") if k not in raw]
    if missing:
        return f"缺少 {', '.join(missing)} / {', '.join(missing)} required"
    for key in _TEXT:
        if key in raw and not isinstance(raw[key], str):
            return f"{key} 须为文字 / must be a string, not {raw[key]!r}"
    for key in _POINTS:
        if key in raw and not points(raw[key]):
            return f"{key} 须为不小于 0 的整数 / must be a whole number, 0 or more, not {raw[key]!r}"
    if raw.get("step") == 0:
        return "step 须大于 0 / must be above 0"
    amounts = raw.get("amounts", [])
    if not isinstance(amounts, list) or not all(points(a) for a in amounts):
        return f"amounts 须为不小于 0 的整数列表 / must be a list of whole numbers, 0 or more, not {amounts!r}"
    for key in _SWITCH:
        if key in raw and not isinstance(raw[key], bool):
            return f"{key} 须为 true 或 false / must be true or false, not {raw[key]!r}"
    return None


def _entry(raw: Mapping[str, Any], where: str) -> Penalty:
    fields = set(Penalty.__dataclass_fields__)
    unknown = set(raw) - fields
    if unknown:
        raise PenaltyError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}; allowed: {', '.join(sorted(fields))}")
    problem = _entry_problem(raw)
    if problem:
        raise PenaltyError(f"{where}: {problem}")
    data = dict(raw)
    if "amounts" in data:
        data["amounts"] = tuple(data["amounts"])
    p = Penalty(**data)
    if p.pays not in PAYS:
        raise PenaltyError(f"{where}: pays must be {', '.join(PAYS[:-1])} or {PAYS[-1]}, got {p.pays!r}")
    given = sum(x is not None and x != () for x in (p.amount, p.amounts or None, p.min))
    if p.from_scoring:
        if given or p.pays != "each":
            raise PenaltyError(f"{where}: from_scoring (诈和 as the scorer pays it) pays each seat, with no amount")
        return p
    if given != 1:
        raise PenaltyError(f"{where}: give exactly one of amount, amounts, or min/max, or from_scoring = true")
    if p.chosen and (p.max is None or p.max < p.min):  # type: ignore[operator]
        raise PenaltyError(f"{where}: max must be given and not below min")
    if p.pays == "tsumo" and any(a % 4 for a in (p.amount or 0, *p.amounts, p.min or 0, p.step if p.chosen else 0)):
        raise PenaltyError(f"{where}: 按自摸分摊的罚分须为 4 的倍数 / pays = \"tsumo\" splits the amount as a tsumo: "
                           "amounts (and min, step) must be multiples of 4")
    return p


def _standing_problem(ruleset_id: str, items: list[Penalty]) -> str | None:
    """Why the ruleset cannot take points off the standing (`pays = "standing"`): its standing counts points only
    with `[scoring] uma` (1 point of standing = 1000 of the table's, WRC 7.1); 标准分 by place has no such unit."""
    standing = [p.code for p in items if p.pays == "standing"]
    if not standing:
        return None
    try:
        from table_controller.scoring.config import scoring

        uma = scoring(ruleset_id).get("uma")
    except Exception:  # a ruleset without [scoring]
        uma = None
    if uma:
        return None
    return (f"{ruleset_id}.toml: {', '.join(standing)} 从终局分扣除（pays = \"standing\"）须设 [scoring] uma（顺位马）/ "
            "pays = \"standing\" takes points off the session's standing, which counts points only with [scoring] uma")


def catalogue(ruleset_id: str) -> Catalogue:
    """The ruleset's catalogue plus the universal entries; a ruleset without one has only those. Read once per
    rulesets folder from the read every part of the table takes (`rules.ruleset.in_use`): keyed by the id alone, a
    venue's copy in another folder was given the first folder's catalogue, and a file edited while the service
    ran gave the Penalties page the new entries beside the old timers."""
    return _catalogue(ruleset_id, folder())


@lru_cache(maxsize=32)
def _catalogue(ruleset_id: str, directory: str) -> Catalogue:
    table = in_use(ruleset_id, directory).sections.get("penalties", {})
    items = [_entry(raw, f"{ruleset_id}.toml [[penalties.items]] #{i + 1}")
             for i, raw in enumerate(table.get("items", []))]
    codes = [p.code for p in items]
    if len(set(codes)) != len(codes):
        raise PenaltyError(f"{ruleset_id}.toml: duplicate penalty codes")
    problem = _standing_problem(ruleset_id, items)
    if problem:
        raise PenaltyError(problem)
    items += [u for u in UNIVERSAL if u.code not in codes]
    return Catalogue(ruleset_id, str(table.get("source", "")), tuple(items))
