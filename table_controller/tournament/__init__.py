"""Tournaments: tables publish their public events to an MQTT broker; a hub keeps standings.

`wire` (topics and payloads), `publisher` (a table's store-and-forward sender), `hub` (the
subscriber and its SQLite files), `web` (the hub's page and `HubService`). See docs/tournament.md.
A table without `[tournament].broker` imports none of this and runs alone.
"""

#: The hub's broker password, and the organiser's credential for publishing seatings: read from the
#: environment by `tablectl hub`, written to hub.env by `tablectl broker-config`.
PASSWORD_ENV = "TABLECTL_HUB_PASSWORD"
ORGANIZER_ENV = "TABLECTL_HUB_ORGANIZER_TOKEN"
