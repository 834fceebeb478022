"""What a bundle says about its agents, for checks that resolve names and agent ids."""

from __future__ import annotations

from collections.abc import Iterable

from teamwire.validator.model import Agent, AgentKind


class SessionIndex:
    """The agents of one bundle, looked up by display name or by (agent_id, role_id)."""

    def __init__(self, agents: Iterable[Agent], leader_creates: Iterable[tuple[str, int]] = (),
                 leader_terminates: Iterable[tuple[int, str | None]] = (),
                 leader_stops: Iterable[tuple[int, str | None]] = ()):
        self.agents: dict[str, Agent] = {a.name: a for a in agents if a.name is not None}
        self._subs = [a for a in self.agents.values()
                      if a.kind is AgentKind.SUB_AGENT and a.agent_id is not None]
        self._created = set(leader_creates)
        self._roles: dict[int, set[str]] = {}
        for sub in self._subs:
            assert sub.agent_id is not None
            self._roles.setdefault(sub.agent_id, set()).add(sub.role_id or "")
        self.terminated: frozenset[str] = frozenset(
            found[0].name for agent_id, role_id in leader_terminates
            if len(found := self.subs_with(agent_id, role_id)) == 1
            and found[0].name is not None)
        """Sub-agents a terminate_sub_agent call of the Team Leader names, unless it failed."""
        self.stopped: dict[str, int] = {}
        """How often an astrion stop_sub_agent call of the Team Leader that did not fail
        names each sub-agent."""
        for agent_id, role_id in leader_stops:
            found = self.subs_with(agent_id, role_id)
            if len(found) == 1 and found[0].name is not None:
                self.stopped[found[0].name] = self.stopped.get(found[0].name, 0) + 1

    def role_id(self, name: str) -> str | None:
        """The role id the bundle records for display name ``name``."""
        agent = self.agents.get(name)
        return None if agent is None else agent.role_id

    def by_name(self, name: str) -> Agent | None:
        """The sub-agent an astrion call names by display name (TW-PROF-026): the one with
        exactly this name, else the first whose name differs only in case, as astrion looks
        it up."""
        agent = self.agents.get(name)
        if agent is not None:
            return agent if agent.kind is AgentKind.SUB_AGENT else None
        lowered = name.lower()
        return next((a for a in self._subs if a.name is not None and a.name.lower() == lowered),
                    None)

    def sub_roles(self) -> dict[int, set[str]]:
        """Role ids of the sub-agents by agent_id."""
        return self._roles

    def subs_with(self, agent_id: int, role_id: str | None = None) -> list[Agent]:
        """Sub-agents with ``agent_id`` (and ``role_id`` if given)."""
        return [a for a in self._subs
                if a.agent_id == agent_id and (role_id is None or a.role_id == role_id)]

    def by_key(self, role_id: str, agent_id: int) -> Agent | None:
        """The sub-agent with this role id and agent id."""
        for sub in self._subs:
            if sub.agent_id == agent_id and sub.role_id == role_id:
                return sub
        return None

    def preexisting(self) -> list[Agent]:
        """Sub-agents the leader's conversation never creates (they existed before it)."""
        return [a for a in self._subs if (a.role_id, a.agent_id) not in self._created]
