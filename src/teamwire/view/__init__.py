"""Pictures of a session: ``teamwire view``.

- ``session``: a bundle or lone conversation loaded, linted, with the linter's links;
- ``order``: one order for the messages of every lane, and where it is unknown;
- ``diagram``: the session as a ``sequence.Diagram`` (cards, arrows, turns, order notes);
- ``sequence``: the drawing vocabulary and the static SVG renderer (reports, docs);
- ``page``: the interactive HTML page; ``terminal``: the session as chat bubbles.
"""
