"""How the bench scripts fail: one line on stderr and a non-zero status, never a traceback
(2 for a usage error, as argparse has it; 1 otherwise), as xpose-bench does."""
import argparse
import importlib
import os
import sys


def fail(message, status=1):
    """Exits with `status` after `prog: message` on one line of stderr."""
    print(f"{os.path.basename(sys.argv[0])}: " + str(message).replace("\n", " "), file=sys.stderr)
    sys.exit(status)


class ArgumentParser(argparse.ArgumentParser):
    """argparse, whose usage errors are one line (`prog: error: message`) instead of the usage and a line."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: " + message.replace("\n", " ") + "\n")


def need(module, how):
    """Imports a module, or fails naming it and how to install it."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        fail(f"cannot import {module} ({e}); {how}")
