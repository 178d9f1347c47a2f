"""The verdict on a hand: fans, total, payments, or the reason it does not score."""

from __future__ import annotations

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
