"""What every ``jantaku admin`` / ``jantaku event`` command group shares: the help a group prints
when no command is named, and the actor its audit records name (``cli:<os user>``)."""

from __future__ import annotations

import argparse
import getpass
import os


def usage(parser: argparse.ArgumentParser) -> int:
    """Print ``parser``'s help; exit code 2 (a group was given without one of its commands)."""
    parser.print_help()
    return 2


def cli_actor() -> str:
    """``cli:<os user>``: who did it, as the audit logs of the command line record it."""
    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = str(os.getuid()) if hasattr(os, "getuid") else "unknown"
    return f"cli:{user}"
