"""广东推倒胡's hand flow on the live record and the hand machine: 跟庄 (the dealer followed by the three others)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from table_controller.hand import CloseWindow, Deal, Discard, Draw, FlowRules, new_hand
from table_controller.scoresheet import compute

from test_referee_fold import Log  # type: ignore[import-not-found]


def play(log: Log, type_: str, **d: Any) -> None:
    log.add("camera", f"play.{type_}", {**d, "by": "camera"})


def discards(log: Log, *plays: tuple[str, str]) -> None:
    for seat, tile in plays:
        play(log, "discard", seat=seat, tile=tile)


def round_of(tile: str) -> list[tuple[str, str]]:
    return [(w, tile) for w in "ESWN"]


def house(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: str, club: str) -> str:
    """A club's 推倒胡 (`extends`), in a rulesets folder of its own beside the shipped file; an id of its own
    per test (the fold keeps each ruleset's flow by id: `referee.flow_of`)."""
    from tests.scoring.test_engines import PACKAGED

    folder = tmp_path / "rulesets"
    folder.mkdir(exist_ok=True)
    (folder / "tuidaohu.toml").write_text((PACKAGED / "tuidaohu.toml").read_text(encoding="utf-8"), encoding="utf-8")
    (folder / f"{club}.toml").write_text(f'extends = "tuidaohu"\nid = "{club}"\nname_zh = "推倒胡（俱乐部）"\n'
                                         f'name_en = "Tui Dao Hu, club"\n\n{body}', encoding="utf-8")
    monkeypatch.setenv("TABLECTL_RULESETS_DIR", str(folder))
    return club


def test_the_three_others_following_the_dealers_first_discard_make_it_pay_each_one_unit() -> None:
    log = Log("tuidaohu")
    log.start(dealer=3)  # E=3, S=4, W=1, N=2
    play(log, "deal_done")
    discards(log, *round_of("1z"))
    hand = log.state().hand
    assert [(c["seat"], c["by_wind"], c.get("kind")) for c in hand["chase_payments"]] == [
        ("E", {"E": -3, "S": 1, "W": 1, "N": 1}, "follow")]
    row = compute(log.state())["rows"][-1]
    assert row["follow_points"] == {"3": -3, "4": 1, "1": 1, "2": 1} and row["points"] == row["follow_points"]
    assert row["chase_points"] == {p: 0 for p in "1234"}  # 跟庄 is not 竞技's 追牌
    discards(log, *round_of("9m"))  # the second go-around: once only by default
    assert len(log.state().hand["chase_payments"]) == 1


def test_no_follow_after_a_call_a_different_tile_or_where_the_ruleset_has_none() -> None:
    log = Log("tuidaohu")
    log.start()
    play(log, "deal_done")
    discards(log, ("E", "1z"), ("S", "1z"), ("W", "1z"), ("N", "2z"))  # N did not follow
    discards(log, *round_of("3z"))  # the second go-around: not counted
    assert "chase_payments" not in log.state().hand
    log = Log("tuidaohu")
    log.start(hand_no=1)
    play(log, "deal_done")
    discards(log, ("E", "5p"))
    play(log, "kong", seat="S", tiles=["9s"] * 4, concealed=True)  # a kong before the others follow
    discards(log, ("S", "5p"), ("W", "5p"), ("N", "5p"))
    assert "chase_payments" not in log.state().hand
    for ruleset in ("mcr", "jipinghu"):
        other = Log(ruleset)
        other.start()
        play(other, "deal_done")
        discards(other, *round_of("1z"))
        assert "chase_payments" not in other.state().hand, ruleset


def test_a_club_repeating_the_follow_and_paying_two_units(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    club = house(tmp_path, monkeypatch, "[flow]\nfollow_dealer = 2\n\n[scoring]\nfollow_dealer_each = 2\n",
                 "tuidaohu_follow")
    log = Log(club)
    log.start()
    play(log, "deal_done")
    discards(log, *round_of("1z"), *round_of("8s"), *round_of("2p"))  # 连续跟庄: two go-arounds, not three
    paid = [c["by_wind"] for c in log.state().hand["chase_payments"]]
    assert paid == [{"E": -6, "S": 2, "W": 2, "N": 2}] * 2


def test_the_hand_machine_notes_the_follow_as_the_record_pays_it() -> None:
    from tests.hand.test_hand_flow import FakeWall, hands, play as machine

    rules = FlowRules.for_ruleset("tuidaohu")
    assert rules.follow_dealer == 1
    steps = [Discard("E", "1z"), CloseWindow()]
    for w in "SWN":
        steps += [Draw(w), Discard(w, "1z"), CloseWindow()]
    s, notes = machine(new_hand(rules, FakeWall(60)), Deal(hands()), *steps)
    assert {"type": "follow", "first": "E", "tile": "1z"} in notes and s.followed == 1
    from table_controller.scoring import follow_payment

    assert follow_payment("tuidaohu") == {"E": -3, "S": 1, "W": 1, "N": 1}


BLOOM = {"seat_wind": "E", "prevalent_wind": "E", "win": "kong_replacement", "win_tile": "9p",
         "melds": [{"type": "kong", "tiles": ["5s"] * 4, "concealed": False, "from": "S"}],
         "concealed": ["1m", "2m", "3m", "4m", "5m", "6m", "7p", "8p", "2z", "2z"]}  # 杠上开花 8 × 自摸 2


def test_a_kong_bloom_on_a_discarded_kong_tile_is_paid_by_its_discarder_alone() -> None:
    from table_controller.scoring import score_json

    each = score_json(BLOOM, "tuidaohu")  # the feeder not given: each pays, as a 自摸
    assert [f["name"] for f in each["fans"]] == ["杠上开花"] and each["points"] == 16
    assert each["payments"] == {"E": 48, "S": -16, "W": -16, "N": -16}
    alone = score_json({**BLOOM, "options": {"kong_feeder": "S"}}, "tuidaohu")
    assert alone["payments"] == {"E": 48, "S": -48, "W": 0, "N": 0}  # 杠爆全包
    horse = score_json({**BLOOM, "options": {"kong_feeder": "S", "horses": ["1m"]}}, "tuidaohu")
    assert horse["payments"] == {"E": 96, "S": -96, "W": 0, "N": 0}  # a horse on the winner: the feeder again
    from table_controller.scoring import ScoringError, score

    from table_controller.scoring.hand import HandInput
    with pytest.raises(ScoringError, match="点杠者不能是和牌方"):
        score(HandInput.from_json({**BLOOM, "options": {"kong_feeder": "E"}}), "tuidaohu")


def test_the_record_names_the_kongs_discarder_and_the_bloom_is_paid_by_it() -> None:
    log = Log("tuidaohu")
    log.start()
    play(log, "deal_done")
    discards(log, ("E", "3z"), ("S", "5s"))
    play(log, "claim", seat="W", kind="kong", tiles=["5s"] * 4, **{"from": "S"})
    win = {**BLOOM, "seat_wind": "W", "win": "self_draw",
           "melds": [{"type": "kong", "tiles": ["5s"] * 4, "concealed": False, "from": "S"}]}
    log.ref("referee.win_read", hand=win)
    read = log.state().actions[-1]
    assert read["hand"]["win"] == "kong_replacement" and read["hand"]["options"]["kong_feeder"] == "S"
    assert read["result"]["payments"] == {"W": 48, "S": -48, "E": 0, "N": 0}
    # a 暗杠's or a 补杠's bloom: every seat pays
    read = added_kong_bloom("tuidaohu", win)
    assert "kong_feeder" not in read["hand"].get("options", {}) and read["result"]["payments"]["E"] == -16


def seven_pairs(seat: str, suit: str) -> dict[str, Any]:
    pairs = [f"{r}{suit}" for r in (1, 1, 2, 2, 3, 3, 4, 4, 6, 6, 7, 7)]
    return {"seat_wind": seat, "win": "discard", "discarder": "S", "win_tile": "5p", "concealed": [*pairs, "5p"],
            "options": {"horses": ["2m"]}}  # 七对 16 on S's 5p


def test_a_second_winner_on_one_discard_counts_the_horses_from_the_discarder() -> None:
    """Seed 001 买马: "一炮多响时，从放炮者开始". W's horse 2 from the discarder S is W itself (下家): W wins it again
    from S; counted from W it was N, no payer of W's win, and nothing."""
    log = Log("tuidaohu")
    log.start()
    play(log, "deal_done")
    discards(log, ("E", "1z"), ("S", "5p"))
    log.ref("referee.win_read", hand=seven_pairs("N", "s"))
    log.ref("referee.win_confirm")
    log.ref("referee.win_read", hand=seven_pairs("W", "m"))
    read = log.state().actions[-1]
    assert read["hand"]["options"] == {"horses": ["2m"], "horse_origin": "S"}
    assert read["result"]["payments"] == {"W": 32, "S": -32, "E": 0, "N": 0} and read["result"]["horses"] == ["W"]
    log.ref("referee.win_read", hand={**seven_pairs("W", "m"), "options": {"horses": ["2m"], "horse_origin": "W"}})
    assert log.state().actions[-1]["result"]["payments"]["W"] == 16  # the referee's word stands


PUNGS = {"seat_wind": "W", "win": "discard", "discarder": "E", "win_tile": "5m",
         "concealed": ["1m"] * 3 + ["2m"] * 3 + ["3m"] * 3 + ["4m", "4m", "5m", "5m"]}  # 清一色 碰碰胡 on 4m or 5m


def passed_4m(ruleset: str) -> dict[str, Any]:
    """W discards, N's 4m (a win W lets go by), then E's 5m: W's read on it."""
    log = Log(ruleset)
    log.start()
    play(log, "deal_done")
    discards(log, ("E", "1z"), ("S", "9s"), ("W", "1p"), ("N", "4m"), ("E", "5m"))
    log.ref("referee.win_read", hand=PUNGS)
    return dict(log.state().actions[-1]["result"])


def test_passing_a_win_bars_the_tile_passed_or_where_the_club_says_any_win(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    assert passed_4m("tuidaohu")["valid"]  # seed 001 漏胡: only the tile passed (4m), and 5m is another
    club = house(tmp_path, monkeypatch, "[flow]\nmissed_win_any = true\n", "tuidaohu_pass")
    result = passed_4m(club)
    assert not result["valid"] and result["reason"] == "missed_win"
    assert result["message"].startswith("过胡不胡：放过了北家打出的四万（可和），在自己摸牌前不能点和")
    log = Log("tuidaohu")  # the plain 漏胡 names the seat passed as players do (it said "放过了N的这张牌")
    log.start()
    play(log, "deal_done")
    discards(log, ("E", "1z"), ("S", "9s"), ("W", "1p"), ("N", "5m"), ("E", "5m"))
    log.ref("referee.win_read", hand=PUNGS)
    assert log.state().actions[-1]["result"]["message"].startswith("漏和：放过了北家打出的这张牌，在自己摸牌前不能再和这张")


def test_the_hand_machine_locks_every_win_after_a_pass_where_the_club_says_so() -> None:
    from dataclasses import replace

    from table_controller.hand import Claim, IllegalAction, Pass, apply
    from tests.hand.test_hand_flow import FakeWall, hands, play as machine

    rules = replace(FlowRules.for_ruleset("tuidaohu"), missed_win_any=True)
    s, notes = machine(new_hand(rules, FakeWall(40)), Deal(hands(E="4m5m", W="111222333m4455m")),
                       Discard("E", "4m"), Pass("S"), Pass("W"), Pass("N"), Draw("S"), Discard("S", "5m"))
    assert {"type": "missed_win", "seat": "W", "tile": "4m"} in notes
    with pytest.raises(IllegalAction) as err:
        apply(s, Claim("W", "win"))
    assert err.value.code == "missed_win" and "过胡不胡" in err.value.rule


def kong_then_draw(ruleset: str) -> dict[str, Any]:
    log = Log(ruleset)
    log.start()
    play(log, "deal_done")
    play(log, "kong", seat="S", tiles=["9s"] * 4, concealed=True)  # 暗杠: 2 from each
    log.add("operator", "operator.hand_end", {"hand_no": 1, "result": "draw"})
    return dict(compute(log.state())["rows"][-1])


def test_a_club_playing_huangzhuang_huanggang_pays_the_kongs_back_at_a_draw(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    kept = kong_then_draw("tuidaohu")  # seed 001 杠牌直接输赢: paid, whatever the hand's end
    assert kept["kong_points"] == {"1": -2, "2": 6, "3": -2, "4": -2} and kept["points"] == kept["kong_points"]
    club = house(tmp_path, monkeypatch, '[scoring]\nkongs_on_draw = "return"\n', "tuidaohu_draw")
    back = kong_then_draw(club)
    assert back["kong_points"] == back["points"] == {p: 0 for p in "1234"} and back["kongs_returned"]
    from table_controller.scoring import ScoringError, check_tables

    wrong = house(tmp_path, monkeypatch, '[scoring]\nkongs_on_draw = "refund"\n', "tuidaohu_wrong")
    with pytest.raises(ScoringError, match="荒庄杠分须为 keep"):
        check_tables(wrong)


def test_a_club_paying_each_horse_its_base_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from table_controller.scoring import ScoringError, check_tables, score_json

    hand = {**seven_pairs("W", "m"), "options": {"horses": ["1m", "4m", "2m"]}}  # W, S (上家 of W), N: no payer
    won = score_json(hand, "tuidaohu")  # 七对 16 from S; seed 001: each horse as the win
    assert won["payments"] == {"W": 48, "S": -48, "E": 0, "N": 0} and won["horses"] == ["W", "S", "N"]
    club = house(tmp_path, monkeypatch, '[scoring]\nhorse_pays = "base"\n', "tuidaohu_horse")
    based = score_json(hand, club)  # 马跟底分: 1 a horse
    assert based["payments"] == {"W": 18, "S": -18, "E": 0, "N": 0}
    wrong = house(tmp_path, monkeypatch, '[scoring]\nhorse_pays = "double"\n', "tuidaohu_horse_wrong")
    with pytest.raises(ScoringError, match="马的分须为 win"):
        check_tables(wrong)


def self_drawn_pairs(horses: list[str]) -> dict[str, Any]:
    """W's 七对 self-drawn on 5p: 16 × 自摸 2 = 32 from each of E, S and N."""
    pairs = [f"{r}m" for r in (1, 1, 2, 2, 3, 3, 4, 4, 6, 6, 7, 7)]
    return {"seat_wind": "W", "win": "self_draw", "win_tile": "5p", "concealed": [*pairs, "5p"],
            "options": {"horses": horses}}


def test_a_club_counting_the_dragon_horses_as_the_seed_lists_them(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The horses' honours were a table in guangdong.py; `[hand_end] honour_values` was read by no one. Seed 001's
    list can be read 下家 … 红中, 对家 … 发财, 上家 … 白板: a club's file says so and is paid so."""
    from table_controller.rules import load_ruleset
    from table_controller.scoring import ScoringError, check_tables, score_json

    hand = self_drawn_pairs(["7z", "6z"])  # 中, 发
    shipped = score_json(hand, "tuidaohu")  # 中 → the winner W (each pays again), 发 → 下家 N (N again)
    assert shipped["horses"] == ["W", "N"]
    assert shipped["payments"] == {"W": 224, "E": -64, "S": -64, "N": -96}
    club = house(tmp_path, monkeypatch, '[hand_end]\nhonour_values = { "7z" = 2, "6z" = 3, "5z" = 4 }\n',
                 "tuidaohu_dragons")
    read = score_json({**hand, "options": {"horses": ["7z", "6z", "5z"]}}, club)
    assert read["horses"] == ["N", "E", "S"]  # 中 → 下家, 发 → 对家, 白 → 上家 of W; 东南西北 as shipped
    assert read["payments"] == {"W": 192, "E": -64, "S": -64, "N": -64}
    assert score_json(hand, club)["payments"] == {"W": 160, "E": -64, "S": -32, "N": -64}
    end = load_ruleset(club).hand_end
    assert end is not None and [end.seat_for(k, "W") for k in ("7z", "6z", "5z", "1z")] == ["N", "E", "S", "W"]
    wrong = house(tmp_path, monkeypatch, '[hand_end]\ncounts_from = "previous_winner"\n', "tuidaohu_from")
    with pytest.raises(ScoringError, match="推倒胡的马从和牌方数起"):
        check_tables(wrong)
    monkeypatch.delenv("TABLECTL_RULESETS_DIR")
    with pytest.raises(ScoringError, match="不买马") as err:  # 鸡平胡 has no [hand_end]: its horses were paid
        score_json(hand, "jipinghu")
    assert err.value.field == "options.horses"


def test_a_horse_count_the_file_lacks_or_gives_a_suit_is_refused_naming_the_key(tmp_path: Path) -> None:
    from table_controller.rules import RulesetError, load_ruleset
    from tests.scoring.test_engines import PACKAGED

    text = (PACKAGED / "tuidaohu.toml").read_text(encoding="utf-8").replace('id = "tuidaohu"', 'id = "tdh"')
    (tmp_path / "tdh.toml").write_text(text.replace(', "5z" = 3 }', " }"), encoding="utf-8")
    with pytest.raises(RulesetError, match=r"\[hand_end\] honour_values: gives no count for 5z"):
        load_ruleset("tdh", tmp_path)
    (tmp_path / "tdh.toml").write_text(text.replace('"1z" = 1,', '"1z" = 1, "1m" = 2,'), encoding="utf-8")
    with pytest.raises(RulesetError, match=r"\[hand_end\] honour_values: counts the honours .* not 1m"):
        load_ruleset("tdh", tmp_path)
    (tmp_path / "tdh.toml").write_text(text, encoding="utf-8")
    assert load_ruleset("tdh", tmp_path).hand_end.honour_values["7z"] == 1  # type: ignore[union-attr]


#: S robs E's 补杠 of 5p with 123m 456m 789s 4p6p 东东: 抢杠胡 8 (the 鸡胡 shape dropped), valued as a discard.
ROBBED = {"seat_wind": "S", "win": "rob_kong", "discarder": "E", "win_tile": "5p",
          "concealed": ["1m", "2m", "3m", "4m", "5m", "6m", "7s", "8s", "9s", "4p", "6p", "1z", "1z"]}


def test_a_club_paying_a_robbed_kong_as_a_self_draw(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """抢杠胡 was worth a discard win only, the konger paying three shares of it (24 for 8); many parlours count it a
    自摸 the konger pays alone (48): `[scoring] rob_kong_as_self_draw`."""
    from table_controller.scoring import ScoringError, check_tables, score_json

    shipped = score_json(ROBBED, "tuidaohu")
    assert [f["name"] for f in shipped["fans"]] == ["抢杠胡"] and shipped["points"] == 8
    assert shipped["payments"] == {"S": 24, "E": -24, "W": 0, "N": 0}
    club = house(tmp_path, monkeypatch, "[scoring]\nrob_kong_as_self_draw = true\n", "tuidaohu_rob")
    drawn = score_json(ROBBED, club)
    assert drawn["points"] == 16 and drawn["payments"] == {"S": 48, "E": -48, "W": 0, "N": 0}
    horse = score_json({**ROBBED, "options": {"horses": ["1m"]}}, club)  # on the winner: the konger again
    assert horse["payments"] == {"S": 96, "E": -96, "W": 0, "N": 0}
    one = house(tmp_path, monkeypatch, "[scoring]\nrob_kong_as_self_draw = true\nrob_kong_pays_all = false\n",
                "tuidaohu_rob_one")
    assert score_json(ROBBED, one)["payments"] == {"S": 16, "E": -16, "W": 0, "N": 0}  # one share, a 自摸's
    from tests.scoring.test_engines import PACKAGED

    folder = tmp_path / "rulesets"
    (folder / "jipinghu.toml").write_text((PACKAGED / "jipinghu.toml").read_text(encoding="utf-8"), encoding="utf-8")
    (folder / "jph_rob.toml").write_text('extends = "jipinghu"\nid = "jph_rob"\nname_zh = "鸡平胡（俱乐部）"\n'
                                         'name_en = "Ji Ping Hu, club"\n[scoring]\nrob_kong_as_self_draw = true\n',
                                         encoding="utf-8")
    with pytest.raises(ScoringError, match="抢杠胡算自摸（rob_kong_as_self_draw）只用于推倒胡"):
        check_tables("jph_rob")  # 鸡平胡 counts 自摸 as a 番, not a factor


def added_kong_bloom(ruleset: str, hand: dict[str, Any] | None = None) -> dict[str, Any]:
    """E discards 5s, W pungs it, later W draws the fourth 5s, makes it a 补杠 and wins on the replacement
    (read as `hand`, else W's 杠上开花 with the 补杠 shown); the read's action."""
    log = Log(ruleset)
    log.start()
    play(log, "deal_done")
    discards(log, ("E", "5s"))
    play(log, "claim", seat="W", kind="pung", tiles=["5s"] * 3, **{"from": "E"})
    discards(log, ("W", "3z"), ("N", "4z"), ("E", "1z"), ("S", "1p"))
    play(log, "kong", seat="W", tiles=["5s"] * 4, added=True)
    log.ref("referee.win_read", hand=hand or {**BLOOM, "seat_wind": "W", "win": "self_draw", "melds": [
        {"type": "kong", "tiles": ["5s"] * 4, "concealed": False, "from": "E"}]})
    return dict(log.state().actions[-1])


def test_a_club_having_the_pungs_feeder_pay_a_bloom_on_its_added_kong(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """杠爆全包 covered a 点杠 only; 南宁-style parlours have the seat whose discard made the pung pay a 补杠's 杠上开花
    (`[scoring] added_kong_bloom_pays_all`): the record keeps the pung's claim, so it names that seat."""
    from table_controller.scoring import ScoringError, check_tables

    shipped = added_kong_bloom("tuidaohu")  # 杠上开花 16 (8 × 自摸 2) from each, as a 自摸
    assert "kong_feeder" not in shipped["hand"].get("options", {})
    assert shipped["result"]["payments"] == {"W": 48, "E": -16, "S": -16, "N": -16}
    club = house(tmp_path, monkeypatch, "[scoring]\nadded_kong_bloom_pays_all = true\n", "tuidaohu_added")
    read = added_kong_bloom(club)
    assert read["hand"]["win"] == "kong_replacement" and read["hand"].get("options", {}).get("kong_feeder") == "E"
    assert read["result"]["payments"] == {"W": 48, "E": -48, "S": 0, "N": 0}
    wrong = house(tmp_path, monkeypatch, "[scoring]\nadded_kong_bloom_pays_all = true\nkong_bloom_pays_all = false\n",
                  "tuidaohu_added_only")
    with pytest.raises(ScoringError, match="须同时点杠杠爆全包"):
        check_tables(wrong)
