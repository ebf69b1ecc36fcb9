"""Other names of a topic (pure data): "dish" and "meal" are food, "beverage" is a drink.

Recall reads them to match a question's words to a belief's attribute; the offline bookkeeper reads them to
name a topic it extracts. Either bookkeeper's beliefs meet the same names here.
"""

from __future__ import annotations

TOPIC_ALIASES = {"drinks": "drink", "beverage": "drink", "dish": "food", "meal": "food", "color": "colour",
                 "movie": "film", "tv_show": "show", "series": "show", "genre": "music", "music_genre": "music",
                 "cuisine": "food", "snack": "food", "dessert": "food", "musician": "artist"}
