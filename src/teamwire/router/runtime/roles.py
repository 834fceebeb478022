"""The role catalog a session creates sub-agents from."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from teamwire.envelope import LEADER_NAME, LEADER_ROLE_ID, is_role_id, name_problem


def role_problem(role_id: str, name: str) -> str | None:
    """Why a role with this id and name may not exist (TW-NAME rules), or None.

    The role name is checked as it will be used, in the display name of its
    first instance, so that no name an envelope cannot carry is ever created
    (TW-SEC-006).
    """
    if not is_role_id(role_id) or role_id == LEADER_ROLE_ID:
        return f"role id {role_id!r} is not allowed (^[a-z0-9][a-z0-9_-]{{0,63}}$, not " \
               f"{LEADER_ROLE_ID!r})"
    if name == LEADER_NAME:
        return f"role name {name!r} is reserved for the leader"
    problem = name_problem(f"{name}_1")
    if problem is not None:
        return f"role name {name!r} is not allowed: {problem}"
    return None


@dataclass(frozen=True)
class RoleInfo:
    """One role of the catalog: id, display name, description and system prompt."""

    role_id: str
    name: str
    description: str
    prompt: str
    model: str | None = None
    thinking_mode: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The entry of list_agents."""
        data: dict[str, Any] = {"role_id": self.role_id, "name": self.name,
                                "description": self.description}
        if self.model is not None:
            data["model"] = self.model
        if self.thinking_mode is not None:
            data["thinking_mode"] = self.thinking_mode
        return data

    def to_record(self) -> dict[str, Any]:
        """Every field, as a session store keeps a role created during the session."""
        return {**self.to_json(), "prompt": self.prompt}

    @classmethod
    def from_record(cls, data: dict[str, Any]) -> RoleInfo:
        """The inverse of ``to_record``."""
        return cls(data["role_id"], data["name"], data["description"], data["prompt"],
                   data.get("model"), data.get("thinking_mode"))


DEFAULT_ROLES: tuple[RoleInfo, ...] = (
    RoleInfo("ui-operator", "UI Operator", "Designs and builds user interfaces.",
             "You are a UI Operator. Design and build the interface you are asked for."),
    RoleInfo("full-stack-engineer", "Full-Stack Engineer",
             "Builds APIs, services and their front-end wiring.",
             "You are a Full-Stack Engineer. Build the services you are asked for."),
)

LEADER_PROMPT = ("You are the Team Leader. Split the user's request into tasks, create "
                 "sub-agents for them, guide them and report back to the user.")
