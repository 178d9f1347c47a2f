"""Every rule text a ruleset cites is named by its title (`rules.sources.cite`): a new seed number
cited without a title in `SEED_TITLES` would reach the referee's page as "seed 00N"."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, Iterator

from table_controller.rules.sources import SEED_TITLES, cite

ROOT = Path(__file__).resolve().parents[2]


def _sources(x: Any) -> Iterator[str]:
    if isinstance(x, dict):
        for k, v in x.items():
            if k == "source" and isinstance(v, str):
                yield v
            else:
                yield from _sources(v)


def test_every_cited_seed_has_a_title_and_every_title_a_seed_file() -> None:
    files = sorted((ROOT / "config").rglob("*.toml"))
    cited = [(f.name, s) for f in files for s in _sources(tomllib.loads(f.read_text(encoding="utf-8")))]
    assert len(cited) > 20
    untitled = [(name, cite(s)) for name, s in cited if "seed" in cite(s)]
    assert not untitled, untitled
    seeds = ROOT.parent / "shared" / "seeds"
    if seeds.is_dir():  # the titles come from the files' own headings
        assert {p.name[:3] for p in seeds.glob("*.txt")} == set(SEED_TITLES)


def test_cite_names_each_number_and_keeps_the_rest() -> None:
    assert cite("seed 000, 004 海南麻将 (3) 起牌") == "《麻将比赛规则》范文十篇、《竞技麻将比赛规则》（搜狐体育） 海南麻将 (3) 起牌"
    assert cite("seed 003 诈和; seed 999 x") == "《麻将》各地玩法 诈和; seed 999 x"
    assert cite("house rule") == "house rule"
