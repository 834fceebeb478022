"""A router that never calls its model: it says where it runs (its process id and its state
directory) into the file named by its argument, then waits until it is killed."""

import os
import signal
import sys

with open(sys.argv[1], "w", encoding="utf-8") as announce:
    announce.write(f"{os.getpid()} {os.environ['TEAMWIRE_STATE_DIR']}\n")
signal.pause()
