"""The verdict on a hand: fans, total, payments, or the reason it does not score."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Fan:
    """One scoring element that a hand holds: Chinese `name`, `value` each, held `count` times."""

    name: str
    value: int
    count: int = 1
    name_en: str = ""

    @property
    def points(self) -> int:
        return self.value * self.count

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "value": self.value, "count": self.count}
        if self.name_en:
            out["name_en"] = self.name_en
        return out


#: A step's operations on the running amount: × and + a value, 封顶 at most the value, = the value (a limit hand's
#: fixed count), 2^ two to the power of it (四川, 鸡平胡: 番 doubles the base).
STEP_OPS = ("×", "+", "封顶", "=", "2^")


@dataclass(frozen=True)
class Step:
    """One step the scorer took from a win's total to what one payer pays (自摸 ×2, 硬胡 ×2, 爆胡 封顶 3, 底分 ×1):
    a factor, not a Fan, so the Win page can show how 合计 becomes the payment (`details["steps"]`)."""

    name: str
    name_en: str
    op: str
    value: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "name_en": self.name_en, "op": self.op, "value": self.value}


def apply_steps(total: int, steps: Sequence[Step]) -> int:
    """One share: `total` taken through the steps in order."""
    amount = total
    for step in steps:
        amount = (amount * step.value if step.op == "×" else amount + step.value if step.op == "+"
                  else min(amount, step.value) if step.op == "封顶" else step.value if step.op == "=" else 2 ** amount)
    return amount


@dataclass(frozen=True)
class Share:
    """A payer who does not pay the steps' one share (`details["shares"]`): `op` "×" pays `value` shares (包三家 3,
    封胡), "=" pays `value` itself (国标 点和: the two others pay 底分 8)."""

    seat: str
    name: str
    name_en: str
    op: str
    value: int

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "name": self.name, "name_en": self.name_en, "op": self.op, "value": self.value}


def settlement(steps: Sequence[Step], shares: Sequence[Share] = ()) -> dict[str, Any]:
    """The details that say how the total becomes each payer's amount: `steps` from the total to one share, in the
    order applied, and the payers whose amount differs from one share."""
    for step in steps:
        if step.op not in STEP_OPS:
            raise ValueError(f"a step's op is one of {STEP_OPS}, not {step.op!r}")
    return {"steps": [s.to_json() for s in steps], "shares": [s.to_json() for s in shares]}


@dataclass(frozen=True)
class ScoreResult:
    """A scored hand (`valid`) or a refusal with a stable `reason` code and a Chinese `message`.

    `total` is in the ruleset's own unit (MCR 番, 竞技 分, 四川 番 before doubling, ...);
    `points` is what one payer pays before the ruleset's multipliers, and `payments` the signed
    amounts per seat, summing to zero.
    """

    valid: bool
    ruleset: str
    fans: tuple[Fan, ...] = ()
    total: int = 0
    points: int = 0
    payments: dict[str, int] = field(default_factory=dict)
    reason: str = ""
    message: str = ""
    details: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        if not self.valid:
            out: dict[str, Any] = {"valid": False, "ruleset": self.ruleset, "reason": self.reason,
                                   "message": self.message}
            if self.fans:
                out["fans"] = [f.to_json() for f in self.fans]
                out["total"] = self.total
            return out
        out = {"valid": True, "ruleset": self.ruleset, "fans": [f.to_json() for f in self.fans],
               "total": self.total, "points": self.points, "payments": dict(self.payments)}
        out.update(self.details)
        return out


def refuse(ruleset: str, reason: str, message: str, fans: tuple[Fan, ...] = (),
           total: int = 0) -> ScoreResult:
    """A hand that does not win or misses the minimum: a verdict, not an error."""
    return ScoreResult(valid=False, ruleset=ruleset, reason=reason, message=message,
                       fans=fans, total=total)
