"""Venue mode (``tableref venue``, docs/venue.md): every table of a club, café or tournament on
one screen, the players' results across games, and links to each table's dashboard and replays.

* ``tiles``: a table's tile from its retained state (pure);
* ``hall``: every tile, from the broker's messages, published on the venue's event bus;
* ``results``: the SQLite results store, standings, merges, CSV; ``records``: importing records;
* ``service``: the composition root (one ``tableref.mqtt.MqttLink`` subscribed to every table);
* ``web``: the venue page and its API, on the dashboard's foundations (PIN, CSRF, live stream).
"""
