"""Links, mutes and sanctions in memory: the :class:`~server.domain.social.SocialStore` half of
``InMemoryRepository`` (the same answers as :mod:`server.store.social`)."""

from __future__ import annotations

from dataclasses import replace

from server.domain.social import LinkRecord, SanctionRecord


def _pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)


class MemorySocial:
    """Mixed into ``InMemoryRepository`` (``_init_social`` from its constructor)."""

    _social_links: dict[tuple[str, str], LinkRecord]
    _social_mutes: set[tuple[str, str]]
    _social_sanctions: list[SanctionRecord]
    _social_hidden: set[str]

    def _init_social(self) -> None:
        self._social_links = {}
        self._social_mutes = set()
        self._social_sanctions = []
        self._social_hidden = set()

    async def links(self) -> list[LinkRecord]:
        return list(self._social_links.values())

    async def put_link(self, link: LinkRecord) -> None:
        self._social_links[_pair(link.a, link.b)] = link

    async def drop_link(self, a: str, b: str) -> None:
        self._social_links.pop(_pair(a, b), None)

    async def mutes(self) -> list[tuple[str, str]]:
        return sorted(self._social_mutes)

    async def put_mute(self, account_id: str, muted: str, *, on: bool) -> None:
        if on:
            self._social_mutes.add((account_id, muted))
        else:
            self._social_mutes.discard((account_id, muted))

    async def add_sanction(self, sanction: SanctionRecord) -> SanctionRecord:
        stored = replace(sanction, id=len(self._social_sanctions) + 1)
        self._social_sanctions.append(stored)
        return stored

    async def lift_sanction(self, sanction_id: int, *, by: str, at: float) -> SanctionRecord | None:
        if not 1 <= sanction_id <= len(self._social_sanctions):
            return None
        found = self._social_sanctions[sanction_id - 1]
        if found.lifted_at is None:
            found = replace(found, lifted_at=at, lifted_by=by)
            self._social_sanctions[sanction_id - 1] = found
        return found

    async def sanctions(self) -> list[SanctionRecord]:
        return list(self._social_sanctions)

    async def hidden(self) -> list[str]:
        return sorted(self._social_hidden)

    async def put_hidden(self, account_id: str, *, hidden: bool) -> None:
        if hidden:
            self._social_hidden.add(account_id)
        else:
            self._social_hidden.discard(account_id)
