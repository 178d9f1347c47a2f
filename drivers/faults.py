"""The table's fault codes with the names and remedies shown to referees (protocol.md §9)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class FaultKind:
    """One fault code: referees read `name_zh` and `remedy_zh`; English rides alongside."""

    code: int
    id: str
    name_zh: str
    name_en: str
    remedy_zh: str
    remedy_en: str
    blocks: tuple[str, ...]  # the mechanisms it stops: "build", "lift", "dice"


FAULTS: tuple[FaultKind, ...] = (
    FaultKind(1, "jam", "卡牌", "tile jam",
              "关机后打开面板，取出卡住的牌，再按复位", "switch off, open the panel, remove the stuck tile, press reset",
              ("build", "lift")),
    FaultKind(2, "missing_tile", "缺牌", "tiles missing",
              "清点牌数，把掉落或遗留的牌放回中心", "count the tiles, put dropped or left tiles back into the centre",
              ("lift",)),
    FaultKind(3, "extra_tile", "多牌", "too many tiles",
              "取出多余的牌或另一副牌的牌", "remove the extra tiles or tiles of the other set",
              ("lift",)),
    FaultKind(4, "motor", "电机故障", "motor failure",
              "停止使用，联系维修", "stop using the table, call service",
              ("build", "lift")),
    FaultKind(5, "overheat", "过热", "over-heat",
              "关机冷却十分钟后再开", "switch off, let it cool ten minutes",
              ("build", "lift")),
    FaultKind(6, "centre_open", "中心盖未关", "centre lid open",
              "把中心盖放平关好", "close the centre lid flat",
              ("build", "lift")),
    FaultKind(7, "sensor", "传感器故障", "sensor fault",
              "清洁光电传感器，仍不行请联系维修", "clean the photo sensor; if it persists, call service",
              ("build",)),
    FaultKind(8, "power", "电压不足", "low supply voltage",
              "检查电源和插座", "check the mains and the plug",
              ("build", "lift")),
    FaultKind(9, "dice", "骰子故障", "dice unit fault",
              "打开骰子盖检查，按复位", "open the dice cover, check, press reset",
              ("dice",)),
)

BY_CODE: dict[int, FaultKind] = {f.code: f for f in FAULTS}
BY_ID: dict[str, FaultKind] = {f.id: f for f in FAULTS}


#: The parts a firmware names in a fault's `where` (protocol.md §9), as a referee calls them.
PART_ZH: dict[str, str] = {
    "table": "整机", "chain": "链条", "pusher": "推牌器", "lift": "升降台", "disc": "转盘", "ring": "转圈",
    "counter": "计数器", "centre": "中心盖", "center": "中心盖", "photo": "光电传感器", "supply": "电源",
    "power": "电源", "dice": "骰子", "motor": "电机", "lid": "盖板",
}
#: A side of the table (E S W N) is the chair there: 1 to 4.
SIDE_ZH: dict[str, str] = {"E": "1号位", "S": "2号位", "W": "3号位", "N": "4号位"}


def where_zh(where: str) -> str:
    """A fault's place in the referee's words ("lift N" → "4号位升降台", "disc motor" → "转盘电机");
    a word the table is not known to use stays as the firmware sent it."""
    words = where.split()
    sides = [SIDE_ZH[w] for w in words if w in SIDE_ZH]
    parts = [PART_ZH.get(w.lower(), w) for w in words if w not in SIDE_ZH]
    return "".join(sides + parts)


def fault_fields(code: int, where: str) -> dict[str, object]:
    """The fields of a `fault_raised` event as the display shows them; unknown codes stay visible."""
    kind = BY_CODE.get(code)
    if kind is None:
        return {"code": code, "id": "unknown", "name_zh": f"未知故障 {code}", "name_en": f"unknown fault {code}",
                "where": where, "where_zh": where_zh(where), "remedy_zh": "记录故障代码，联系维修",
                "remedy_en": "note the code and call service"}
    return {"code": code, "id": kind.id, "name_zh": kind.name_zh, "name_en": kind.name_en, "where": where,
            "where_zh": where_zh(where), "remedy_zh": kind.remedy_zh, "remedy_en": kind.remedy_en}
