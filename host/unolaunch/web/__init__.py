"""The game in a browser (``--web``): a table view and a view per player.

:mod:`.address` (no extra needed) checks ``--web``; :mod:`.state` builds the JSON;
:mod:`.front` connects the pages to the table's session (or the demo); :mod:`.server`
serves them with aiohttp (the ``web`` extra).
"""
