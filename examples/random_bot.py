"""A bot that joins a quick match and answers every prompt with a random legal action.

    python examples/random_bot.py --server ws://127.0.0.1:8765/ws --name randy
    python examples/random_bot.py --server ws://127.0.0.1:8765/ws --token BOT_TOKEN --first
    python examples/random_bot.py --server ws://127.0.0.1:8765/ws --token BOT_TOKEN --event --games 4

It plays one match, reconnecting (and resuming) if the connection drops, then prints the result.
With ``--event`` it plays the seats its bot account holds at an event's tables instead of queueing
(``docs/tournaments.md``, "Bot events"): it says hello every second until the ``welcome`` lists a
live seat, resumes it and plays; ``--games N`` plays the next N such games (one per round).
"""

from __future__ import annotations

import argparse
import asyncio
import random

from client_protocol.client import Client
from client_protocol.errors import ConnectionLostError, ErrorCode, RequestRejectedError
from client_protocol.messages import Action, Auth, GuestAuth, MatchEnd, Prompt, Seated, TokenAuth


def choose(prompt: Prompt, rng: random.Random | None) -> Action:
    """A random legal action, or the first one when ``rng`` is None."""
    return rng.choice(prompt.legal_actions) if rng is not None else prompt.legal_actions[0]


async def play(
    url: str, auth: Auth, preset: str, rng: random.Random | None, *, event: bool = False
) -> MatchEnd:
    client = await Client.connect(url, auth)
    try:
        if event:  # an event's bot: wait until the welcome lists a seat at a running table
            while client.welcome is None or not client.welcome.seats:
                await client.close()
                await asyncio.sleep(1.0)
                client = await Client.connect(url, auth)
            await client.resume(client.welcome.seats[0].match_id)
        else:
            await client.join_queue(preset)
        while True:
            try:
                async for message in client:
                    if isinstance(message, Seated):
                        print(f"seated in {message.match_id} as seat {message.seat}")
                    elif isinstance(message, Prompt):
                        try:
                            await client.act(choose(message, rng), step=message.step)
                        except RequestRejectedError as exc:  # e.g. stale_step: a newer prompt follows
                            print(f"action refused: {exc}")
                    elif isinstance(message, MatchEnd):
                        return message
                raise ConnectionLostError("the client was closed")
            except ConnectionLostError as exc:
                print(f"connection lost ({exc}); reconnecting")
                await reconnect(client)
    finally:
        await client.close()


async def reconnect(client: Client, attempts: int = 12) -> None:
    """Reconnect and resume, backing off from 0.5 s to 8 s between attempts: in a cluster, a match
    whose server node died runs again on another node some seconds later (the server holds the
    resume until then, or asks to try again)."""
    delay = 0.5
    for _ in range(attempts - 1):
        try:
            await client.reconnect()
            return
        except ConnectionLostError as exc:
            print(f"reconnecting failed ({exc}); again in {delay:g} s")
        except RequestRejectedError as exc:
            if exc.code not in (ErrorCode.BUSY_RETRY, ErrorCode.RATE_LIMITED):
                raise
            print(f"reconnecting refused for now ({exc}); again in {delay:g} s")
        await asyncio.sleep(delay)
        delay = min(delay * 2, 8.0)
    await client.reconnect()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", default="ws://127.0.0.1:8765/ws", help="websocket URL of the server")
    parser.add_argument("--token", help="a bot token (default: play as a guest)")
    parser.add_argument("--name", default="random-bot", help="guest name")
    parser.add_argument("--preset", default="tenhou", help="quick-match ruleset preset")
    parser.add_argument("--first", action="store_true", help="always take the first legal action")
    parser.add_argument("--seed", type=int, help="seed of the random choices")
    parser.add_argument("--event", action="store_true", help="play the seat held at an event's table")
    parser.add_argument("--games", type=int, default=1, help="games to play (with --event: one per round)")
    args = parser.parse_args()
    auth: Auth = TokenAuth(token=args.token) if args.token else GuestAuth(name=args.name)
    rng = None if args.first else random.Random(args.seed)
    for _ in range(max(1, args.games)):
        end = asyncio.run(play(args.server, auth, args.preset, rng, event=args.event))
        if end.result is None:
            print(f"match {end.match_id} ended: {end.reason}")
        else:
            print(f"match {end.match_id} ended: scores {end.result.scores}, ranks {end.result.ranks}")


if __name__ == "__main__":
    main()
