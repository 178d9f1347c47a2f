"""Tournaments: tables publish their public events to an MQTT broker; a hub keeps standings.

`wire` (topics and payloads), `publisher` (a table's store-and-forward sender), `hub` (the
subscriber and its SQLite files), `web` (the hub's page and `HubService`). See docs/tournament.md.
A table without `[tournament].broker` imports none of this and runs alone.
"""
