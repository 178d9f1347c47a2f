"""A text picture of the four walls of a deal plan, for `tablectl deal` and referees' logs.

Seen from above with the dealer (E) at the bottom: E's wall runs E1 at the right to EL at the
left, N's up the left side, W's left to right along the top, S's down the right side, which
is the clockwise order of walls.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from table_controller.tiles import SEAT_NAMES

if TYPE_CHECKING:
    from .deal import DealPlan
    from .wall_state import WallState

#: Each mark's name, Chinese then English (the picture's lines are said "中文 / English", as `tablectl` says things).
LEGEND = {
    "*": ("翻牌", "indicator"),
    ">": ("下一张", "next draw"),
    "<": ("补牌", "next replacement"),
    "$": ("海底", "last tile"),
    "x": ("留牌", "dead wall, reserve"),
    ".": ("已抓", "dealt"),
    "#": ("牌墙", "live"),
}
_PRIORITY = "*><$x.#"


def _marks(plan: DealPlan, state: WallState) -> dict[str, str]:
    """One mark per stack name (`W07`), the most telling one when a stack has several."""
    marks: dict[str, str] = {}

    def put(position: str | None, mark: str) -> None:
        if position is None:
            return
        name = position[:-1]
        old = marks.get(name)
        if old is None or _PRIORITY.index(mark) < _PRIORITY.index(old):
            marks[name] = mark

    for positions in state.indicator_positions().values():
        for pos in positions:
            put(pos, "*")
    put(state.next_draw, ">")
    put(state.next_replacement, "<")
    put(state.last_live, "$")
    for pos in state.dead():
        put(pos, "x")
    standing = set(state.live_order()) | set(state.dead())
    for pos in plan.order:
        put(pos, "#" if pos in standing else ".")
    return marks


def render_plan(plan: DealPlan, state: WallState | None = None) -> str:
    """The picture plus a few lines saying in words what the dice decided."""
    state = state or plan.initial_state()
    rs = plan.ruleset
    marks = _marks(plan, state)
    e, s, w, n = plan.ring.lengths

    def cell(wall: str, number: int) -> str:
        return marks.get(f"{wall}{number:02d}", "?")

    width = max(w, e)
    height = max(n, s)
    lines = []
    lines.append(f"    西 W: W01 → W{w:02d}")
    lines.append("    " + " ".join(cell("W", i) for i in range(1, w + 1)))
    for row in range(height):
        left = cell("N", n - row) if row < n else " "
        right = cell("S", row + 1) if row < s else " "
        label_l = f"N{n - row:02d}" if row < n else "   "
        label_r = f"S{row + 1:02d}" if row < s else ""
        lines.append(f"{label_l} {left}{' ' * (2 * width + 1)}{right} {label_r}")
    lines.append("    " + " ".join(cell("E", i) for i in range(e, 0, -1)))
    lines.append(f"    东 E（庄家）：E{e:02d} ← E01    北 N 在左侧自下而上，南 S 在右侧自上而下 / E (dealer), N runs up the "
                 "left, S down the right")
    legend = ("  ".join(f"{k} {zh}" for k, (zh, _) in LEGEND.items()) + " / "
              + "  ".join(f"{k} {en}" for k, (_, en) in LEGEND.items()))

    brk_wall, brk_stack = plan.ring.stack_at(plan.break_stack)
    thrown = [(seat, f"{'+'.join(map(str, dice))}={sum(dice)}")
              for seat, dice in zip(plan.throwers, (plan.dice, plan.dice2)) if dice is not None]
    mode = "留" if plan.brk.mode == "leave" else "从第"
    walls = f"E{e} S{s} W{w} N{n}"
    lines += [
        legend,
        f"{rs.id} {rs.name_zh} · {rs.tiles} 张 · 牌墙 {walls} / {rs.name_en} · {rs.tiles} tiles · walls {walls}",
        "骰子：" + "；".join(f"{seat} 掷 {said}" for seat, said in thrown) + " / dice: "
        + "; ".join(f"{seat} threw {said}" for seat, said in thrown),
        f"开门：{SEAT_NAMES[plan.brk.wall]}({plan.brk.wall}) 家牌墙，数 {plan.brk.count}（{mode}{plan.brk.count}墩）→ 止于 "
        f"{brk_wall}{brk_stack:02d}，首张 {plan.first_dealt} / break: {plan.brk.wall}'s wall, count {plan.brk.count} "
        f"({plan.brk.mode}) → ends at {brk_wall}{brk_stack:02d}, first dealt {plan.first_dealt}",
    ]
    for seat, positions in plan.hands.items():
        lines.append(f"  {seat} {SEAT_NAMES[seat]} {len(positions):>2}: {' '.join(positions)}")
    lines.append(f"下一张 {state.next_draw} · 海底 {state.last_live} · 补牌 {state.next_replacement} · 余 "
                 f"{state.live_left} 张 / next draw {state.next_draw} · last tile {state.last_live} · next replacement "
                 f"{state.next_replacement} · live left {state.live_left}")
    if plan.indicators:
        names = {r.name: r.name_zh for r in rs.indicators}
        lines.append("翻牌：" + "，".join(f"{names[k]} {v}" for k, v in plan.indicators.items()) + " / indicators: "
                     + ", ".join(f"{k} {v}" for k, v in plan.indicators.items()))
    if plan.set_aside:
        lines.append(f"翻开留置：{' '.join(plan.set_aside)} / set aside (turned up): {' '.join(plan.set_aside)}")
    return "\n".join(lines)
