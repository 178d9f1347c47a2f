"""The rule texts the rulesets cite, by the names a referee knows them by.

The ruleset files cite the project's seed texts as `seed 000 范文四 八、…` (the files in
shared/seeds/); a referee reading the penalty catalogue's 出处 cannot look up "seed 000". `cite`
gives the document's own title in its place; the files keep the short form, which points a
developer to the exact file."""

from __future__ import annotations

import re

#: seed number -> the title the text goes by (what a referee can find), from each file's own heading.
SEED_TITLES: dict[str, str] = {
    "000": "《麻将比赛规则》范文十篇",
    "001": "《麻将牌介绍与基本规则》",
    "003": "《麻将》各地玩法",
    "004": "《竞技麻将比赛规则》（搜狐体育）",
}

_SEEDS = re.compile(r"\bseeds? (\d{3}(?:\s*(?:,|、|and|与)\s*\d{3})*)")


def cite(source: str) -> str:
    """`source` with each "seed NNN" (or "seed 000, 004") named by its title; unknown numbers kept."""
    def titled(m: re.Match[str]) -> str:
        numbers = re.findall(r"\d{3}", m.group(1))
        return "、".join(SEED_TITLES.get(n, f"seed {n}") for n in numbers)

    return _SEEDS.sub(titled, source)
