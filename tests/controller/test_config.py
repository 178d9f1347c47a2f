"""Configuration: the example file is valid, and every kind of mistake names file, key and what is allowed."""

from pathlib import Path

import pytest

from table_controller.config import REPO_ROOT, ConfigError, load_config, parse_config


def test_example_config_is_valid_and_documents_every_section() -> None:
    cfg = load_config(REPO_ROOT / "config" / "table.example.toml")
    assert cfg.display.port == 8080
    assert cfg.table.link == "sim://"
    assert sorted(p.position for p in cfg.players) == [1, 2, 3, 4]
    text = (REPO_ROOT / "config" / "table.example.toml").read_text(encoding="utf-8")
    for section in ("[table]", "[camera]", "[rules]", "[[players]]", "[display]", "[storage]", "[log]", "[demo]"):
        assert section in text


def test_the_example_config_shows_every_key() -> None:
    """The README sends the user to it ("every key is documented there"); `[demo] camera` was missing."""
    import re

    from table_controller.config import TableConfig

    text = (REPO_ROOT / "config" / "table.example.toml").read_text(encoding="utf-8")
    missing = []
    for name, field in TableConfig.model_fields.items():
        section = field.annotation
        if not isinstance(section, type) or not hasattr(section, "model_fields"):  # players, source
            continue
        for key in section.model_fields:
            if key != "referees" and not re.search(rf"^#? ?{key} = ", text, re.M):
                missing.append(f"{name}.{key}")
    assert not missing
    assert "[[display.referees]]" in text


def test_unknown_key_names_file_and_key(tmp_path: Path) -> None:
    f = tmp_path / "t.toml"
    f.write_text('[display]\nprot = 8080\n', encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        load_config(f)
    msg = str(err.value)
    assert str(f) in msg and "display.prot" in msg and "not a known setting" in msg


@pytest.mark.parametrize("text, key, meant", [
    ('[display]\nprot = 8080\n', "display.prot", "port"),
    ('[storge]\ndata_dir = "d"\n', "storge", "storage"),
    ('[[display.referees]]\nname = "王立"\ntokne = "123456"\n', "display.referees.0.tokne", "token"),
    ('[[players]]\npositon = 1\nname = "甲"\n', "players.0.positon", "position"),
])
def test_a_misspelt_key_is_answered_with_the_key_meant(tmp_path: Path, text: str, key: str, meant: str) -> None:
    """A technician's typo said only "not a known setting"; the key meant is now named, from the
    section the typo is in (a referee's or a player's keys inside their lists too)."""
    f = tmp_path / "t.toml"
    f.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        load_config(f)
    assert f"key {key!r} is not a known setting; did you mean {meant!r}?" in str(err.value)


@pytest.mark.parametrize("text, key, home", [
    ('[display]\nname = "2号桌"\n', "display.name", "[table] or [[players]]"),
    ('[table]\nport = 8081\n', "table.port", "[display]"),
    ('[rules]\nlevel = "debug"\n', "rules.level", "[log]"),
])
def test_a_key_in_the_wrong_table_names_the_table_it_belongs_to(tmp_path: Path, text: str, key: str,
                                                                  home: str) -> None:
    """`port` under [table] said only "not a known setting": the technician looked for a typo in a name spelt right."""
    f = tmp_path / "t.toml"
    f.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        load_config(f)
    assert f"key {key!r} is not a known setting; 此键属于" in str(err.value)
    assert f"it is a key of {home}" in str(err.value)


def test_a_key_like_none_of_its_sections_gets_no_guess(tmp_path: Path) -> None:
    f = tmp_path / "t.toml"
    f.write_text('[table]\nzzz = 1\n', encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        load_config(f)
    assert "key 'table.zzz' is not a known setting (see" in str(err.value) and "did you mean" not in str(err.value)


def test_wrong_values_say_what_is_allowed() -> None:
    with pytest.raises(ConfigError) as err:
        parse_config({"table": {"dialect": "morse", "baud": 3}, "display": {"port": 70000}}, "x.toml")
    msg = str(err.value)
    assert "table.dialect" in msg and "'mahjong-link'" in msg
    assert "table.baud" in msg and "display.port" in msg


def test_unknown_ruleset_lists_the_known_ones() -> None:
    with pytest.raises(ConfigError) as err:
        parse_config({"rules": {"ruleset": "klondike"}}, "x.toml")
    assert "rules.ruleset" in str(err.value) and "mcr" in str(err.value)


def test_players_must_be_four_distinct_positions() -> None:
    players = [{"position": 1, "name": "甲"}, {"position": 1, "name": "乙"},
               {"position": 3, "name": "丙"}, {"position": 4, "name": "丁"}]
    with pytest.raises(ConfigError, match="positions 1, 2, 3 and 4"):
        parse_config({"players": players}, "x.toml")


def test_unreadable_and_malformed_files(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[table\nname=", encoding="utf-8")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(bad)


def test_data_dir_is_relative_to_the_config_file(tmp_path: Path) -> None:
    f = tmp_path / "sub" / "t.toml"
    f.parent.mkdir()
    f.write_text('[storage]\ndata_dir = "rec"\n', encoding="utf-8")
    assert load_config(f).data_path() == (tmp_path / "sub" / "rec").resolve()


def test_the_example_config_shows_the_defaults() -> None:
    """Its header says "the values shown are the defaults": each key set equals the setting's default, and a key
    left commented whose default is another's shows that one (the default ruleset's tile count, the packaged
    model's threshold). The threshold shown was 0.66, the first model's, while the packaged one says 0.72."""
    import re
    import tomllib

    from table_controller.config import TableConfig
    from table_controller.rules import load_ruleset
    from vision.model import DEFAULT_MODEL
    from vision.reader import model_threshold

    path = REPO_ROOT / "config" / "table.example.toml"
    defaults = TableConfig()
    wrong = []
    for section, values in tomllib.loads(path.read_text(encoding="utf-8")).items():
        if section == "players":
            continue
        for key, value in values.items():
            default = getattr(getattr(defaults, section), key)
            if (list(default) if isinstance(default, tuple) else default) != value:
                wrong.append(f"{section}.{key} = {value!r}, default {default!r}")
    assert not wrong
    shown = dict(re.findall(r"^# (tile_count|threshold) = ([\d.]+)", path.read_text(encoding="utf-8"), re.M))
    assert int(shown["tile_count"]) == load_ruleset(defaults.rules.ruleset).tiles
    assert float(shown["threshold"]) == model_threshold(DEFAULT_MODEL)


def test_the_default_ruleset_is_checked_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A config without `[rules]` takes mcr; an install whose rulesets are missing (a wheel without config/)
    passed `tablectl check` and answered the display's first state with a 500. Now the default is checked
    as a named one is, and the error names where rulesets were looked for."""
    empty = tmp_path / "rulesets"
    empty.mkdir()
    monkeypatch.setenv("TABLECTL_RULESETS_DIR", str(empty))
    with pytest.raises(ConfigError) as err:
        parse_config({"table": {"link": "sim://"}}, source="test")
    assert "mcr" in str(err.value) and "none found" in str(err.value)
    monkeypatch.delenv("TABLECTL_RULESETS_DIR")
    assert parse_config({"table": {"link": "sim://"}}, source="test").rules.ruleset == "mcr"


def test_a_config_saved_by_a_windows_editor_is_read_or_named_with_what_to_do(tmp_path: Path) -> None:
    """Notepad's UTF-8 byte-order mark was refused as "Invalid statement (at line 1, column 1)", and a
    file saved as GBK ("ANSI" on a Chinese Windows) was "'utf-8' codec can't decode byte 0xd2 in position 16"."""
    bom = tmp_path / "bom.toml"
    bom.write_bytes('[table]\nname = "一号桌"\n'.encode("utf-8-sig"))
    assert load_config(bom).table.name == "一号桌"
    gbk = tmp_path / "gbk.toml"
    gbk.write_bytes('[display]\nport = 8080\n[table]\nname = "一号桌"\n'.encode("gbk"))
    with pytest.raises(ConfigError) as err:
        load_config(gbk)
    assert f"{gbk}: line 4 is not UTF-8 text" in str(err.value) and "请以 UTF-8 编码保存" in str(err.value)


def test_a_credential_is_written_into_a_config_saved_with_a_byte_order_mark(tmp_path: Path) -> None:
    """`tablectl pin` and the page's 更改凭证 read the file as the service does: a BOM is no refusal."""
    from table_controller.credential_file import REFEREE, write_credential

    f = tmp_path / "t.toml"
    f.write_bytes('[display]\nreferee_token = "old-pin-1"\n'.encode("utf-8-sig"))
    write_credential(f, REFEREE, "new-pin-2")
    assert load_config(f).display.referee_token == "new-pin-2"


def test_a_check_of_the_whole_file_says_its_reason_not_the_whole_file(tmp_path: Path) -> None:
    """A rule over several keys (four players, tls_cert with tls_key) was "key '(top level)': Value error,
    players: ... (got {'players': [...], 'display': {...}, 'source': ...})": every key of the file after
    the reason, on one line of the journal."""
    f = tmp_path / "t.toml"
    f.write_text('[display]\nreferee_token = "a-long-pin-1"\n[[players]]\nposition = 1\nname = "甲"\n',
                 encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        load_config(f)
    assert str(err.value) == f"{f}: players: exactly four players with positions 1, 2, 3 and 4 are required"
    with pytest.raises(ConfigError) as err:
        parse_config({"tournament": {"broker": "http://x"}}, "x.toml")
    assert str(err.value).startswith("x.toml: key 'tournament.broker': 赛事服务器地址 'http://x' 须为 mqtt://")
    assert " / broker 'http://x': expected mqtt://" in str(err.value)
    assert "Value error" not in str(err.value) and "(got" not in str(err.value)


def test_a_pin_written_as_a_number_is_asked_for_in_quotes_without_being_shown(tmp_path: Path) -> None:
    """`referee_token = 123456` (TOML reads a number) was "Input should be a valid string (got '<credential not
    shown>')": right and unhelpful. It says to put the credential in quotes, and still never shows it."""
    f = tmp_path / "t.toml"
    f.write_text("[display]\nreferee_token = 482913\noperator_token = 0.5\n", encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        load_config(f)
    said = str(err.value)
    assert "key 'display.referee_token': 凭证是文字，须加引号（referee_token = \"…\"）" in said
    assert "key 'display.operator_token': 凭证是文字，须加引号" in said and "put it in quotes" in said
    assert "482913" not in said and "0.5" not in said


@pytest.mark.parametrize("name", ["甲\u200b", "甲\n", "\u202e乙"])
def test_a_players_name_with_an_invisible_or_control_character_is_refused(name: str) -> None:
    """The table's page and the hub refuse such a name (`printable`); the config took it, and "甲\u200b"
    sent to the hub beside 甲 was another player there."""
    players = [{"position": 1, "name": name}, {"position": 2, "name": "乙"},
               {"position": 3, "name": "丙"}, {"position": 4, "name": "丁"}]
    with pytest.raises(ConfigError, match="players.0.name.*不可见字符或控制字符"):
        parse_config({"players": players}, "x.toml")


@pytest.mark.parametrize("link", ["usb://1a86", "usb://1a86:75", "usb://zz86:7523", "usb://1a86:7523/serial",
                                  "usb://1a86:7523/1/2", "socket://192.168.1.50", ""])
def test_a_link_no_transport_can_open_is_refused_with_the_form_expected(tmp_path: Path, link: str) -> None:
    """It was taken: the service retried it for ever and `tablectl check` blamed the cable and the baud rate."""
    config = tmp_path / "table.toml"
    config.write_text(f'[table]\nlink = "{link}"\n', encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        load_config(config)
    msg = str(err.value)
    assert "table.link" in msg
    assert ("usb://VID:PID" in msg and "usb://1a86:7523" in msg) if link.startswith("usb://") else "://" in msg


def test_a_usb_link_with_its_nth_device_is_taken() -> None:
    assert parse_config({"table": {"link": "usb://1A86:7523/1"}}).table.link == "usb://1A86:7523/1"


@pytest.mark.parametrize("table, error", [
    ("[timers]\nturn_secnds = 20\n", "[timers] has unknown key 'turn_secnds'"),
    ("[[penalties.items]]\ncode = \"late\"\nname_zh = \"迟到\"\nname_en = \"Late\"\npays = \"everyone\"\namount = 10\n",
     "pays must be dead, each, victim, tsumo or standing"),
    ("[[penalties.items]]\ncode = \"late\"\nname_zh = \"迟到\"\namount = 10\n", "缺少 name_en / name_en required"),
    ("[[penalties.items]]\ncode = \"late\"\nname_zh = \"迟到\"\nname_en = \"Late\"\namount = \"10\"\n",
     "amount 须为不小于 0 的整数"),
    ("[[penalties.items]]\ncode = \"late\"\nname_zh = \"迟到\"\nname_en = \"Late\"\namounts = [10, -20]\n",
     "amounts 须为不小于 0 的整数列表"),
])
def test_a_table_naming_a_new_regional_ruleset_with_a_broken_timer_or_penalty_does_not_start(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, table: str, error: str) -> None:
    """A venue's own file (no `extends`) passed `tablectl check` (可以开赛) and the service started; the display's
    every state then answered 500 (its timers and its penalty catalogue are in each)."""
    text = (REPO_ROOT / "config" / "rulesets" / "nanning.toml").read_text(encoding="utf-8")
    text = text.replace('id = "nanning"', 'id = "liuzhou"').replace("[scoring]\n", '[scoring]\nengine = "nanning"\n')
    (tmp_path / "liuzhou.toml").write_text(text + table, encoding="utf-8")
    monkeypatch.setenv("TABLECTL_RULESETS_DIR", str(tmp_path))
    with pytest.raises(ConfigError) as err:
        parse_config({"rules": {"ruleset": "liuzhou"}}, "t.toml")
    assert "rules.ruleset" in str(err.value) and error in str(err.value)


@pytest.mark.parametrize(("buttons", "said"), [
    ({"chatter_presses": 2}, "'buttons.chatter_presses': Input should be greater than or equal to 3"),
    ({"chatter_presses": 10.5}, "'buttons.chatter_presses': Input should be a valid integer"),
    ({"chatter_presses": True}, "'buttons.chatter_presses': Input should be a valid integer"),
    ({"chatter_window_s": 0}, "'buttons.chatter_window_s': Input should be greater than 0"),
    ({"chatter_window_s": float("nan")}, "'buttons.chatter_window_s'"),
    ({"quiet_s": 0.5}, "'buttons.quiet_s': Input should be greater than or equal to 1"),
    ({"chatter_presses": 5, "chatter_window_s": 10.0}, "under one report a second, as a player presses"),
])
def test_button_chatter_thresholds_a_player_or_nothing_could_meet_are_refused(buttons: dict[str, object],
                                                                              said: str) -> None:
    """`[buttons]` (the chattering button's notice): a threshold of 2 reports, a fraction, a window of nothing or
    NaN, a quiet of under a heartbeat, or fewer than one report a second (a player's own presses) is named."""
    with pytest.raises(ConfigError) as err:
        parse_config({"buttons": buttons}, source="t.toml")
    assert said in str(err.value)
