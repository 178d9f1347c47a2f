"""Reads the hand notation of the gb-mahjong test data into this project's score JSON (tests only)."""

from __future__ import annotations

import re
from typing import Any

from table_controller import tiles as T

_HONOURS = {"E": "1z", "S": "2z", "W": "3z", "N": "4z", "P": "5z", "F": "6z", "C": "7z"}

#: The data's pinyin fan ids → the Chinese names the library and the referee use.
PINYIN = {
    "DASIXI": "大四喜", "DASANYUAN": "大三元", "LVYISE": "绿一色", "JIULIANBAODENG": "九莲宝灯",
    "SIGANG": "四杠", "LIANQIDUI": "连七对", "SHISANYAO": "十三幺", "QINGYAOJIU": "清幺九",
    "XIAOSIXI": "小四喜", "XIAOSANYUAN": "小三元", "ZIYISE": "字一色", "SIANKE": "四暗刻",
    "YISESHUANGLONGHUI": "一色双龙会", "YISESITONGSHUN": "一色四同顺", "YISESIJIEGAO": "一色四节高",
    "YISESIBUGAO": "一色四步高", "SANGANG": "三杠", "HUNYAOJIU": "混幺九", "QIDUI": "七对",
    "QIXINGBUKAO": "七星不靠", "QUANSHUANGKE": "全双刻", "QINGYISE": "清一色",
    "YISESANTONGSHUN": "一色三同顺", "YISESANJIEGAO": "一色三节高", "QUANDA": "全大",
    "QUANZHONG": "全中", "QUANXIAO": "全小", "QINGLONG": "清龙", "SANSESHUANGLONGHUI": "三色双龙会",
    "YISESANBUGAO": "一色三步高", "QUANDAIWU": "全带五", "SANTONGKE": "三同刻", "SANANKE": "三暗刻",
    "QUANBUKAO": "全不靠", "ZUHELONG": "组合龙", "DAYUWU": "大于五", "XIAOYUWU": "小于五",
    "SANFENGKE": "三风刻", "HUALONG": "花龙", "TUIBUDAO": "推不倒", "SANSESANTONGSHUN": "三色三同顺",
    "SANSESANJIEGAO": "三色三节高", "WUFANHU": "无番和", "MIAOSHOUHUICHUN": "妙手回春",
    "HAIDILAOYUE": "海底捞月", "GANGSHANGKAIHUA": "杠上开花", "QIANGGANGHU": "抢杠和",
    "PENGPENGHU": "碰碰和", "HUNYISE": "混一色", "SANSESANBUGAO": "三色三步高", "WUMENQI": "五门齐",
    "QUANQIUREN": "全求人", "SHUANGANGANG": "双暗杠", "SHUANGJIANKE": "双箭刻", "QUANDAIYAO": "全带幺",
    "BUQIUREN": "不求人", "SHUANGMINGGANG": "双明杠", "HUJUEZHANG": "和绝张", "JIANKE": "箭刻",
    "QUANFENGKE": "圈风刻", "MENFENGKE": "门风刻", "MENQIANQING": "门前清", "PINGHU": "平和",
    "SIGUIYI": "四归一", "SHUANGTONGKE": "双同刻", "SHUANGANKE": "双暗刻", "ANGANG": "暗杠",
    "DUANYAO": "断幺", "YIBANGAO": "一般高", "XIXIANGFENG": "喜相逢", "LIANLIU": "连六",
    "LAOSHAOFU": "老少副", "YAOJIUKE": "幺九刻", "MINGGANG": "明杠", "QUEYIMEN": "缺一门",
    "WUZI": "无字", "BIANZHANG": "边张", "KANZHANG": "嵌张", "DANDIAOJIANG": "单钓将", "ZIMO": "自摸",
    "HUAPAI": "花牌", "MINGANGANG": "明暗杠",
}


def _tiles(text: str) -> list[str]:
    out: list[str] = []
    digits = ""
    for ch in text:
        if ch.isdigit():
            digits += ch
        elif ch in "msp":
            out += [f"{d}{ch}" for d in digits]
            digits = ""
        elif ch in _HONOURS:
            out.append(_HONOURS[ch])
        else:
            raise ValueError(f"cannot read {ch!r} in {text!r}")
    if digits:
        raise ValueError(f"digits without a suit in {text!r}")
    return out


def read_ready(text: str) -> dict[str, Any]:
    """A ready hand of the data's waits cases (13 tiles, no winning tile) → the score JSON."""
    data = read_case(text + "|EE0000")
    data["concealed"].append(data.pop("win_tile"))
    data.pop("discarder", None)
    data["win"] = "self_draw"
    return data


def read_case(text: str) -> dict[str, Any]:
    """One case of the data → the score JSON of docs/scoring.md (winner's seat from the flags)."""
    hand, _, rest = text.strip().partition("|")
    flags, _, flowers = rest.partition("|")
    prevalent, seat = "E", "E"
    self_draw = fourth = last = kong = False
    if flags:
        prevalent, seat = flags[0], flags[1]
        self_draw, fourth, last, kong = (c == "1" for c in flags[2:6])
    melds: list[dict[str, Any]] = []
    for body, offer in re.findall(r"\[([^\],]+)(?:,(\d))?\]", hand):
        tiles = _tiles(body)
        if len(set(tiles)) == 3:
            melds.append({"type": "chi", "tiles": tiles, "from": T.seat_after(seat, 3),
                          "claimed": tiles[int(offer) - 1] if offer else tiles[0]})
        elif not offer:
            melds.append({"type": "kong", "tiles": tiles, "concealed": True})
        else:
            steps = {1: 3, 2: 2, 3: 1}[int(offer) % 4]
            melds.append({"type": "pung" if len(tiles) == 3 else "kong", "tiles": tiles,
                          "from": T.seat_after(seat, steps)})
    concealed = _tiles(re.sub(r"\[[^\]]*\]", "", hand).replace(" ", ""))
    win_tile = concealed.pop()
    if kong:
        win = "kong_replacement" if self_draw else "rob_kong"
    else:
        win = "self_draw" if self_draw else "discard"
    data: dict[str, Any] = {"seat_wind": seat, "prevalent_wind": prevalent, "melds": melds,
                            "concealed": concealed, "win_tile": win_tile, "win": win,
                            "last_tile": last}
    if not self_draw:
        data["discarder"] = T.seat_after(seat, 3)
    if fourth:  # 绝张: three copies seen, counting those in the winner's own exposed melds
        own = sum(m["tiles"].count(win_tile) for m in melds if not m.get("concealed"))
        data["visible"] = {win_tile: 3 - own}
    if flowers.isdigit():
        data["flowers"] = [f"{k}f" for k in range(1, int(flowers) + 1)]
    elif flowers:
        data["flowers"] = [f"{ord(c) - ord('a') + 1}f" for c in flowers]
    return data


def read_cases(path: str) -> list[tuple[str, dict[str, Any], list[list[str]]]]:
    """(input text, score JSON, accepted expected name lists) per line of a case file."""
    cases = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if not line.strip() or line.startswith("#"):
                continue
            parts = [p.strip() for p in line.split(";")]
            expected = [sorted(PINYIN[n] for n in p.split()) for p in parts[1:]]
            cases.append((parts[0], read_case(parts[0]), expected))
    return cases
