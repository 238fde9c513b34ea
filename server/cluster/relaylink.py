"""The client address a relaying node vouches for (``docs/scaling.md``, "Per-address limits").

A node that relays a client to the node running its table connects from its own address, so the
owner would count every relayed client against the relaying node's address (and throttle a busy
node). The relaying node therefore sends the client's real address in the ``X-Jantaku-Relayed-For``
header, signed with the cluster's link secret: ``ADDRESS UNIX-TIME HMAC-SHA256-HEX``. The owner
applies its per-address limits to that address only when the signature is right and the time
recent; a header from anyone else (a client, a stale copy) is ignored: its connection counts
against the address it comes from.

>>> value = sign(b"k", "203.0.113.7", 1000.0)
>>> verify(b"k", value, 1010.0)
'203.0.113.7'
>>> verify(b"other", value, 1010.0) is None, verify(b"k", value, 2000.0) is None
(True, True)
>>> verify(b"k", "203.0.113.8" + value[11:], 1010.0) is None
True

A queued player handed over to its queue's matcher node comes with how long it has waited
(``X-Jantaku-Queued-For: MILLISECONDS UNIX-TIME HMAC``, signed the same way under another label),
so that its bot fill-in counts from when it first queued:

>>> verify_wait(b"k", sign_wait(b"k", 2.5, 1000.0), 1001.0)
2.5
>>> verify_wait(b"k", sign(b"k", "1.2.3.4", 1000.0), 1001.0) is None
True
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress

MAX_AGE_S = 60  # a signed address older (or newer: clock skew) than this is ignored
_MAX_VALUE = 200


def _mac(secret: bytes, message: str) -> str:
    return hmac.new(secret, message.encode(), hashlib.sha256).hexdigest()


def sign(secret: bytes, address: str, now: float) -> str:
    message = f"{address} {int(now)}"
    return f"{message} {_mac(secret, message)}"


def verify(secret: bytes, value: str, now: float, max_age_s: float = MAX_AGE_S) -> str | None:
    """The address ``value`` vouches for, or None (malformed, forged with another secret, or
    stale)."""
    parts = value.split(" ") if len(value) <= _MAX_VALUE else []
    if len(parts) != 3 or not parts[1].isdigit():
        return None
    address, stamp, mac = parts
    if abs(now - int(stamp)) > max_age_s:
        return None
    if not hmac.compare_digest(mac, _mac(secret, f"{address} {stamp}")):
        return None
    try:
        return str(ipaddress.ip_address(address))
    except ValueError:
        return None


def _wait_mac(secret: bytes, message: str) -> str:
    return _mac(secret, f"queued-for {message}")


def sign_wait(secret: bytes, waited_s: float, now: float) -> str:
    message = f"{max(0, round(waited_s * 1000))} {int(now)}"
    return f"{message} {_wait_mac(secret, message)}"


def verify_wait(secret: bytes, value: str, now: float, max_age_s: float = MAX_AGE_S) -> float | None:
    """The wait (seconds) ``value`` vouches for, or None (malformed, another secret, stale)."""
    parts = value.split(" ") if len(value) <= _MAX_VALUE else []
    if len(parts) != 3 or not parts[0].isdigit() or not parts[1].isdigit():
        return None
    waited, stamp, mac = parts
    if abs(now - int(stamp)) > max_age_s:
        return None
    if not hmac.compare_digest(mac, _wait_mac(secret, f"{waited} {stamp}")):
        return None
    return int(waited) / 1000
