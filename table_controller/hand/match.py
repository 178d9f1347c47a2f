"""A session's structure: hands, rounds (圈) and 局, who deals next (轮庄, 连庄), 倍打 and 荒庄.

Positions 1..4 are the physical chairs; the winds (seats) move over them. Players are known by the
chair they drew (抽签号位 1..4, the score sheet's columns); they sit there until a 换位 (seat swap)
moves them, so `seating` says which player sits in each chair.
Pure: `next_hand(match, outcome) -> (match, notes)`, the rules from the ruleset's `[match]` table.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Mapping, Sequence

from table_controller import tiles as T
from table_controller.hand.errors import IllegalAction


#: Who deals after a hand the dealer does not keep (`[match] next_dealer`): the next chair, or the first winner (四川)
NEXT_DEALERS: tuple[str, ...] = ("rotate", "first_winner")
#: When the last hand's dealer, kept, ends the session holding first place (`[match] last_dealer_stop`, riichi):
#: never (WRC, JPML), on its win (アガリ止め, 天凤), or on its win or a ready 流局 (テンパイ止め too)
LAST_DEALER_STOPS: tuple[str, ...] = ("none", "win", "win_or_ready")


@dataclass(frozen=True)
class MatchRules:
    """Typed options of a session, read from `[match]`."""

    ruleset: str
    hands_per_session: int = 0          # 0: no fixed count (timed, or until the rounds are played)
    rounds: tuple[str, ...] = ("E", "S", "W", "N")
    continue_dealer: bool = False       # 连庄 when the dealer wins
    continue_on_draw: bool = False      # the dealer keeps the deal on 荒庄
    continue_if_ready: bool = False     # ... only when ready (riichi 听牌连庄), as the 查叫 ruling says
    continue_on_abortive: bool = True   # the dealer deals again after an abortive draw (riichi 途中流局)
    honba: bool = False                 # riichi 本场: counted, and given to each win's scorer
    double_on_continue: bool = False    # 竞技 倍打 while the dealer keeps the deal
    #: the rounds (圈风) before which the players change chairs (MCR: "W", midway)
    seat_swap_before_round: tuple[str, ...] = ()
    #: the chairs whose players change places at the first, second, ... swap (seed 000 四.6:
    #: 第一次换位是东南（1号2号位）互换，西北（3号4号位）互换，第二次换位是东西（1号3号位）互换，南北（2号4号位）互换)
    seat_swaps: tuple[tuple[tuple[int, int], ...], ...] = (((1, 2), (3, 4)), ((1, 3), (2, 4)))
    next_dealer: str = "rotate"         # "rotate" or "first_winner" (四川: 首先和牌者坐庄)
    #: riichi 飛び: the session is over once a player holds less than 0 (`start_points` plus its running score)
    bust: bool = False
    #: the points each player holds at the start (riichi's `[scoring] start_points`), what 飛び counts from
    start_points: int = 0
    #: アガリ止め / テンパイ止め: the last hand's dealer, kept and first, ends the session (`LAST_DEALER_STOPS`)
    last_dealer_stop: str = "none"

    @classmethod
    def from_table(cls, ruleset: str, table: Mapping[str, Any], start_points: int = 0) -> MatchRules:
        hands = table.get("hands_per_session", 0)
        return cls(ruleset=ruleset, hands_per_session=int(hands) if isinstance(hands, int) else 0,
                   rounds=tuple(table.get("rounds", ("E", "S", "W", "N"))),
                   continue_dealer=bool(table.get("continue_dealer", False)),
                   continue_on_draw=bool(table.get("continue_on_draw", False)),
                   continue_if_ready=bool(table.get("continue_if_ready", False)),
                   continue_on_abortive=bool(table.get("continue_on_abortive", True)),
                   honba=bool(table.get("honba", False)),
                   double_on_continue=bool(table.get("double_on_continue", False)),
                   seat_swap_before_round=_winds(table.get("seat_swap_before_round")),
                   seat_swaps=_swaps(table.get("seat_swaps")) or cls.seat_swaps,
                   next_dealer=str(table.get("next_dealer", "rotate")),
                   bust=table.get("bust", False) is True, start_points=start_points,
                   last_dealer_stop=str(table.get("last_dealer_stop", "none")))

    @classmethod
    def for_ruleset(cls, ruleset: str) -> MatchRules:
        from table_controller.scoring.config import match, scoring
        from table_controller.scoring.errors import ScoringError

        try:
            start = scoring(ruleset).get("start_points", 0)
        except ScoringError:  # a ruleset the referee scores has no [scoring] (unknown_ruleset)
            start = 0
        start = start if isinstance(start, int) and not isinstance(start, bool) else 0
        return cls.from_table(ruleset, match(ruleset), start_points=start)

    @property
    def counts_points(self) -> bool:
        """The session's end depends on the points held (飛び, アガリ止め): `next_hand` needs each hand's payments."""
        return self.bust or self.last_dealer_stop != "none"


@dataclass(frozen=True)
class MatchState:
    """Where a session stands: the dealer's chair, the prevalent wind, hands played, 连庄 count."""

    rules: MatchRules
    dealer_position: int = 1
    first_dealer: int = 1
    round_index: int = 0
    hands_played: int = 0
    dealer_streak: int = 0
    #: 本场 of the coming hand (riichi): +1 after a dealer's win or any draw, back to 0 when another seat wins
    honba: int = 0
    over: bool = False
    history: tuple[dict[str, Any], ...] = field(default=())
    scores: tuple[int, int, int, int] = (0, 0, 0, 0)   # running 比赛分 by player (抽签号位 1..4)
    #: the player (抽签号位) sitting in chairs 1..4; changed by each 换位
    seating: tuple[int, int, int, int] = (1, 2, 3, 4)
    swaps: int = 0

    @property
    def prevalent(self) -> str:
        """圈风 of the coming hand."""
        return self.rules.rounds[min(self.round_index, len(self.rules.rounds) - 1)]

    @property
    def double(self) -> bool:
        """竞技 倍打: the dealer has kept the deal by winning."""
        return self.rules.double_on_continue and self.dealer_streak > 0

    def seat_of(self, position: int) -> str:
        """The wind of a chair in the coming hand (the dealer's chair is E)."""
        return T.SEATS[(position - self.dealer_position) % 4]

    def position_of(self, seat: str) -> int:
        return (self.dealer_position - 1 + T.SEATS.index(seat)) % 4 + 1

    @property
    def player_scores(self) -> dict[int, int]:
        """The running scores by player (抽签号位 1..4): what `points.table_points` ranks into the session's 标准分."""
        return dict(enumerate(self.scores, start=1))

    def player_of(self, seat: str) -> int:
        """The player (抽签号位) holding `seat` in the coming hand."""
        return self.seating[self.position_of(seat) - 1]


def match_problem(table: Mapping[str, Any]) -> str | None:
    """What a `[match]` table says that the session does not know, or None. Read where a table's config is
    (`scoring.check_tables`): a misspelt `next_dealer` ("first_winer") passed the deal to the next chair."""
    who = table.get("next_dealer", "rotate")
    if who not in NEXT_DEALERS:
        return f"[match] next_dealer must be one of {', '.join(NEXT_DEALERS)}, not {who!r}"
    if not isinstance(table.get("bust", False), bool):
        return f"[match] bust must be true or false, not {table['bust']!r}"
    stop = table.get("last_dealer_stop", "none")
    if stop not in LAST_DEALER_STOPS:
        return f"[match] last_dealer_stop must be one of {', '.join(LAST_DEALER_STOPS)}, not {stop!r}"
    rounds = table.get("rounds", list(T.SEATS))
    # a word that is no wind ("East") was taken letter by letter: the rounds' winds 'E', 'a', 's', 't'
    if not isinstance(rounds, (list, tuple)) or not rounds or any(w not in T.SEATS for w in rounds):
        shown = list(rounds) if isinstance(rounds, tuple) else rounds  # as the TOML wrote it (frozen: a tuple)
        return f"[match] rounds must list the rounds' winds, each one of {', '.join(T.SEATS)}, not {shown!r}"
    return None


def _winds(raw: Any) -> tuple[str, ...]:
    if isinstance(raw, str):
        return (raw,)
    return tuple(str(w) for w in raw) if isinstance(raw, (list, tuple)) else ()


def _swaps(raw: Any) -> tuple[tuple[tuple[int, int], ...], ...]:
    if not isinstance(raw, (list, tuple)):
        return ()
    return tuple(tuple((int(a), int(b)) for a, b in swap) for swap in raw)


def swapped(seating: tuple[int, int, int, int], pairs: Sequence[tuple[int, int]]) -> tuple[int, int, int, int]:
    """The seating after the players of each pair of chairs change places."""
    out = list(seating)
    for a, b in pairs:
        out[a - 1], out[b - 1] = out[b - 1], out[a - 1]
    return (out[0], out[1], out[2], out[3])


def start(rules: MatchRules, first_dealer: int = 1) -> MatchState:
    """A session whose first dealer sits in chair `first_dealer` (chosen by the dice)."""
    if first_dealer not in (1, 2, 3, 4):
        raise IllegalAction("bad_position", f"座位号须为1..4, 不是{first_dealer!r}")
    return MatchState(rules=rules, dealer_position=first_dealer, first_dealer=first_dealer)


def next_hand(m: MatchState, winners: list[str], payments: Mapping[str, int] | None = None,
              ready: Sequence[str] = (), abortive: bool = False) -> tuple[MatchState, list[dict[str, Any]]]:
    """After a hand (`winners` by seat in the order they won; none: 荒庄), who deals the next;
    `ready`: the seats found ready (听牌) at 荒庄, where the ruleset keeps a ready dealer;
    `abortive`: the hand ended in an abortive draw (途中流局), after which the dealer deals again.

    `payments` (by seat, as the scorer gives them, kongs and penalties added) go to the running
    score of each chair, so that the session's 标准分 can be ranked
    (`points.table_points(m.player_scores)`).

    The dealer keeps the deal (连庄) when the ruleset says so and the dealer won (or on 荒庄
    where it says so); otherwise the deal passes to the next chair in play order (四川 may give
    it to the first winner instead). A round ends when the deal comes back to the first dealer.
    Where the ruleset says so the session ends sooner: a player holding less than 0 (飛び, `bust`), or the
    last round's last dealer kept while first (`last_dealer_stop`: アガリ止め, テンパイ止め).
    """
    if m.over:
        raise IllegalAction("session_over", "本局比赛已结束")
    for w in winners:
        if w not in T.SEATS:
            raise IllegalAction("bad_seat", f"没有这个座位: {w!r}")
    r = m.rules
    notes: list[dict[str, Any]] = []
    keep = (r.continue_dealer and "E" in winners) or (r.continue_on_draw and not winners) \
        or (r.continue_if_ready and not winners and "E" in ready) or (abortive and r.continue_on_abortive)
    played = m.hands_played + 1
    scores = list(m.scores)
    honba = 0 if winners and "E" not in winners else m.honba + 1
    for seat, amount in (payments or {}).items():
        if seat not in T.SEATS:
            raise IllegalAction("bad_seat", f"没有这个座位: {seat!r}")
        scores[m.player_of(seat) - 1] += amount
    m = replace(m, scores=(scores[0], scores[1], scores[2], scores[3]), honba=honba)
    record = {"hand": played, "dealer": m.dealer_position, "prevalent": m.prevalent, "winners": list(winners)}
    if keep:
        new = replace(m, hands_played=played, dealer_streak=m.dealer_streak + 1, history=m.history + (record,))
        notes.append({"type": "dealer_continues", "position": m.dealer_position, "double": new.double})
    else:
        if r.next_dealer == "first_winner" and winners:
            target = m.position_of(winners[0])
        else:
            target = m.dealer_position % 4 + 1
        round_index = m.round_index
        # a round ends once every chair has dealt: the deal comes back to the first dealer
        passes_first = _passes(m.dealer_position, target, m.first_dealer)
        if passes_first:
            round_index += 1
        new = replace(m, dealer_position=target, round_index=round_index, hands_played=played,
                      dealer_streak=0, history=m.history + (record,))
        if passes_first and round_index < len(r.rounds):
            notes.append({"type": "new_round", "prevalent": new.prevalent})
            if new.prevalent in r.seat_swap_before_round and new.swaps < len(r.seat_swaps):
                pairs = r.seat_swaps[new.swaps]
                new = replace(new, seating=swapped(new.seating, pairs), swaps=new.swaps + 1)
                notes.append({"type": "seat_swap", "before_round": new.prevalent,
                              "pairs": [list(p) for p in pairs], "seating": list(new.seating)})
        if round_index >= len(r.rounds):
            new = replace(new, over=True)
    if r.hands_per_session and new.hands_played >= r.hands_per_session:
        new = replace(new, over=True)
    if keep and _stops(m, winners, ready):
        new = replace(new, over=True)
        notes.append({"type": "last_dealer_stop", "position": m.dealer_position})
    if busted(new):
        new = replace(new, over=True)
        notes.append({"type": "bust", "players": busted(new)})
    if new.over:
        notes.append({"type": "session_over", "hands": new.hands_played})
    return new, notes


def busted(m: MatchState) -> dict[int, int]:
    """飛び: the players (抽签号位) holding less than 0 where the ruleset ends the session so, with what they hold."""
    if not m.rules.bust:
        return {}
    return {p: m.rules.start_points + s for p, s in m.player_scores.items() if m.rules.start_points + s < 0}


def _stops(m: MatchState, winners: Sequence[str], ready: Sequence[str]) -> bool:
    """The dealer of the last round's last hand keeps the deal holding first place alone, and the ruleset ends the
    session then (アガリ止め on its win; テンパイ止め on a ready 流局 too). `m` is after the hand's payments."""
    stop = m.rules.last_dealer_stop
    if stop == "none" or m.round_index < len(m.rules.rounds) - 1:
        return False
    if not _passes(m.dealer_position, m.dealer_position % 4 + 1, m.first_dealer):
        return False  # not the round's last dealer
    if not ("E" in winners or (stop == "win_or_ready" and not winners and "E" in ready)):
        return False
    mine = m.player_of("E")
    return all(m.scores[mine - 1] > s for p, s in m.player_scores.items() if p != mine)


def _passes(old: int, new: int, first: int) -> bool:
    """Moving the deal from chair `old` forward to `new` reaches (or passes) the first dealer."""
    steps = (new - old) % 4 or 4
    return any((old - 1 + k) % 4 + 1 == first for k in range(1, steps + 1))
