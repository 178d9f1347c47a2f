"""The rule language: the keys a ruleset file's tables of the other parts (`[scoring]`, `[flow]`, `[match]`,
`[timers]`, `[penalties]`, `[win_conditions]`) may hold, written once, each read by the part named beside it.

The loader holds every ruleset file to it (`rules.ruleset._check_changes`): a venue's own regional file or house
file cannot invent a key, so a misspelt one (`[match] contine_dealer`) is refused with the nearest, not played as
the default. It was the union of the shipped files' keys, so a file dropped into `config/rulesets/` (as
docs/rules.md "Adding a regional ruleset" says to) made its own typos part of the language. The tables of names
(`[scoring.fans]` ...: `ruleset.NAME_TABLES`) are the scorer's to check. docs/rules.md "The rule language" lists
these keys (`tests/docs/test_rule_language.py`: each documented there, each read by the code)."""

from __future__ import annotations

from typing import Mapping

KEYS: Mapping[str, frozenset[str]] = {
    # hand/rules.py FlowRules; `tiles` and `horses` cross-checked by the loader; `exhaustive_checks` referee.py
    "flow": frozenset({
        "abortive_draws", "baofu_claims", "baofu_hanging", "chase", "continue_after_win", "exhaustive_checks",
        "follow_dealer", "furiten", "horses", "missed_win", "missed_win_any", "missing_suit", "multiple_winners",
        "must_win_last", "no_chow", "no_kong_after_chow", "riichi_declarations", "seal_pungs", "tiles"}),
    # hand/match.py MatchRules (riichi's 飛び `bust`, アガリ止め `last_dealer_stop`); `replay_abandoned` seating.coming (a 中止 replayed, by default, or a 荒庄)
    "match": frozenset({
        "bust", "continue_dealer", "continue_if_ready", "continue_on_abortive", "continue_on_draw",
        "double_on_continue", "hands_per_session", "honba", "last_dealer_stop", "next_dealer", "replay_abandoned",
        "rounds", "seat_swap_before_round", "seat_swaps"}),
    "penalties": frozenset({"items", "source"}),  # penalties.catalogue (each item's keys: penalties.Penalty)
    # the scorers (scoring/<engine>.py); riichi's local rules `uma`, `return_points`, `nagashi_mangan`,
    # `held_wait_ready`, `noten_riichi` are set by no shipped file (off by default, commented out in riichi.toml)
    "scoring": frozenset({
        "added_kong_bloom_pays_all", "additional", "baofu", "base", "bases", "cap_fan", "chase_each", "double",
        "engine", "excludes", "false_win", "false_win_each", "false_win_factor", "fans", "follow_dealer_each",
        "held_wait_ready", "horse_pays", "kiriage", "kong", "kong_bloom_pays_all", "kongs_on_draw", "limit_fan",
        "limit_hands", "min_fan", "multipliers", "nagashi_mangan", "no_chow", "no_wildcard_factor",
        "non_winning_end", "noten_penalty", "noten_riichi", "open_tanyao", "pao", "patterns", "plain",
        "return_points", "riichi_leftover", "riichi_stick", "rob_kong_as_self_draw", "rob_kong_pays_all", "seal",
        "self_draw", "self_draw_factor", "stack", "start_points", "style", "table_points", "tax_refund", "ties", "uma",
        "unit", "ways", "wildcard"}),
    "scoring.additional": frozenset({"单张和牌", "妙手回春", "杠上开花", "海底捞月", "花牌", "补花和牌", "门清"}),  # jingji
    "scoring.baofu": frozenset({"hanging_span", "hanging_swap"}),  # baofu.py
    "scoring.false_win": frozenset({"max", "unit"}),  # jingji
    "scoring.kong": frozenset({"明杠", "暗杠", "点杠", "直杠", "花杠", "补杠", "面下杠"}),  # each engine's kong payments
    "scoring.multipliers": frozenset({"baofu", "discard", "rob_kong", "self_draw"}),  # jingji
    "scoring.non_winning_end": frozenset({"kong"}),  # jingji
    "scoring.plain": frozenset({"concealed_bonus", "discard", "self_draw"}),  # nanning
    "scoring.seal": frozenset({"own_discard", "self_draw", "travel"}),  # nanning 封胡
    "timers": frozenset({  # timers.TimerRules
        "appeal_minutes", "claim_s", "discard_s", "first_discard_s", "session_minutes", "source", "warnings_min"}),
    "win_conditions": frozenset({"require"}),  # scoring/conditions.py
}
