"""``python -m teamwire``: the ``teamwire`` command."""

from teamwire.cli import main

main(prog_name="teamwire")
