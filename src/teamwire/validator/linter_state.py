"""The state one conversation pass keeps, and how it reports a finding.

The walker (``conversation.ConversationLinter``, with its halves ``envelope_checks`` and
``tool_checks``) keeps this state and hands what each message says to the rule checks as
typed facts (``facts``) through the dispatcher (``dispatch``); every per-message rule holds
its checks in its rule module (``rules``), and the walker names none.
"""

from __future__ import annotations

from typing import Any

from teamwire.envelope import Profile
from teamwire.validator.dispatch import Hand, Reporter
from teamwire.validator.emitter import Emitter
from teamwire.validator.facts import (
    AgentCreated,
    AskAnswered,
    CallTarget,
    DisplayName,
    EnvelopeAttributes,
    EnvelopeHead,
    EnvelopeId,
    IdRepeated,
    Malformed,
    MissingResult,
    NotText,
    Owner,
    PeerAsk,
    RoleDefined,
    StrayResult,
    ToolResult,
    Unparsed,
)
from teamwire.validator.memo import IdTest, Memo, Plan, QuietPlan
from teamwire.validator.model import Agent, AgentKind, Call, Facts
from teamwire.validator.registry import Rule
from teamwire.validator.scan import locate
from teamwire.validator.session_index import SessionIndex
from teamwire.validator.tooling import ToolCatalog


class LinterState:
    """Everything a pass over one conversation remembers between messages."""

    def __init__(self, emitter: Emitter, agent: Agent, *, profile: Profile, tools: ToolCatalog,
                 pointer: str = "", session: SessionIndex | None = None,
                 collect: bool = False, round_limit: int = 8, memo: Memo | None = None) -> None:
        self.emitter = emitter
        self.agent = agent
        self.name = agent.name
        self.is_leader = agent.kind is AgentKind.LEADER
        self.is_sub = agent.kind is AgentKind.SUB_AGENT
        self.profile = profile
        self.strict = profile is Profile.STRICT
        self.tools = tools
        self.protocol = tools.protocol
        self.pointer = pointer
        self.session = session
        self.round_limit = round_limit
        self.facts: Facts | None = Facts(agent, pointer=pointer) if collect else None
        self.file_line: int | None = None
        """The file line of the message being checked, when known (JSON Lines)."""
        self.message_index = -1
        """The index of that message."""
        self.file_lines: dict[int, int] = {}
        """Index → file line of the earlier messages a finding may still name (those whose
        tool calls are open)."""
        self.memo = memo if memo is not None else Memo()
        # the checks of each fact kind, and the gate a text must pass to be handed to them
        self.selection = selection = self.memo.selection(emitter.policy.enabled)
        # Every check of delivered and returned envelopes, on or off (placement_checks,
        # returned_every): what makes a head quiet must not depend on the file's selection,
        # since the memo shares quiet heads.
        (self.user_hand, self.user_gate, self.assistant_hand, self.assistant_gate,
         self.tool_text_hand, self.tool_text_gate, self.envelope_hand, self.envelope_gate,
         self.envelope_opens, self.delivered_hand, self.returned_hand,
         self.placement_checks, self.returned_every) = selection.bound
        # The hand-out of each fact kind to the checks of the enabled rules (None: no such
        # check), and the one reporter they report through.
        hands = selection.hands
        self.report = Reporter(owner=self)
        self.id_hand = hands[EnvelopeId]
        self.malformed_hand = hands[Malformed]
        self.content_hand = hands[NotText]
        self.unparsed_checks = selection.checks[Unparsed]
        self.attribute_hand = hands[EnvelopeAttributes]
        # Every check of heads, names and attributes, on or off: a head or a name found fine
        # is shared through the memo whatever a file selects.
        self.head_every = selection.every[EnvelopeHead]
        self.name_every = selection.every[DisplayName]
        self.attribute_every = selection.every[EnvelopeAttributes]
        self.repeat_hand = hands[IdRepeated]
        self.call_hand = selection.call_hand
        self.plain_call_hands: dict[str, Hand | None] = {}
        """``call_hand`` of calls of protocol tools with a first id and arguments read
        cleanly, by tool (the verdict of a tool is this pass's)."""
        self.result_hand = hands[ToolResult]
        self.result_checks = selection.checks[ToolResult]
        self.success_hands: dict[str, Hand | None] = {}
        """The hand-out of a successful result (``"success": true``) of each tool met: none
        when every enabled check of results is quiet about such results of that tool."""
        self.target_hand = hands[CallTarget]
        self.role_hand = hands[RoleDefined]
        self.created_hand = hands[AgentCreated]
        self.missing_hand = hands[MissingResult]
        self.stray_hand = hands[StrayResult]
        self.answered_hand = hands[AskAnswered]
        self.peer_hand = hands[PeerAsk]
        self.owner = Owner(self.name, self.is_leader, self.is_sub, self.strict)
        tables = self.memo.tables(profile, tools, self.is_leader, self.is_sub)
        # label → (type, its tag, its id prefix) for this profile; tuples, because
        # hashing enum members is slow on the per-message path
        self.labels = tables.labels
        # tool name → the finding calling it makes in this agent's conversation
        self.tool_verdicts = tables.verdicts
        # tools some check looks into: protocol tools and those with a verdict
        self.special_tools = tables.special
        # protocol tools without a verdict here: checked, but call by call as usual
        self.protocol_plain = tables.protocol_plain
        self.pending: dict[str, Call | tuple[str, int]] = {}
        """Open tool calls: a Call for protocol tools, (name, message index) for others."""
        self.late: set[str] = set()
        self.stops_used = 0
        """Places where open calls were taken as ended by an astrion stop_sub_agent."""
        self.stopped_calls: dict[str, tuple[str, int]] = {}
        """Those calls: id → (tool, index of the message that made it)."""
        self.call_ids: set[str] = set()
        self.ids: dict[str, tuple[Any, ...]] = (self.facts.ids if self.facts is not None
                                                else {})
        # Bundles keep every message in memory anyway: an id's message is kept as is, and
        # only compared when the id comes again. A stream keeps its hash, so that memory
        # stays flat.
        self.hash_ids = self.facts is None
        self.names: dict[str, bool] = {}
        # (label, tag, sender) → (type, id test) for envelope heads already found fine
        self.plans: dict[tuple[str, str, str], Plan] = {}
        # the same, for heads that no placement rule reports as a user message here, with
        # the list their deliveries are collected in (None when not collecting) and whether
        # they are Outputs (collected as Output tuples, others as DeliveredEnvelope records)
        self.quiet: dict[tuple[str, str, str], QuietPlan] = {}
        # header line of a quiet delivery with the "\nid: " after it → (sender, label, tag,
        # the head's lines after the id, the closing lines, the quiet plan)
        self.heads: dict[str, tuple[str, str, str, str, str, QuietPlan]] = {}
        # header line of an Answer no check reported, with the "\nid: " after it → (sender,
        # label, the head's lines after the id up to the question id, the closing lines, the
        # id test)
        self.answer_heads: dict[str, tuple[str, str, str, str, IdTest]] = {}
        self.texts = self.facts.texts if self.facts is not None and self.is_sub else None
        self.abbreviations: dict[str, str | None] = {}
        self.rounds: dict[tuple[int, str | None], int] = {}
        self.tasks = 0
        self.protocol_seen = False
        self.created: dict[tuple[str, int], int] = {}
        # ("role id" | "name", value) → index of the create_custom_agent call that defined it
        self.custom_roles: dict[tuple[str, str], int] = {}
        self.known: dict[int, set[str]] = {}
        self.shown_names: dict[str, tuple[str, int]] = {}
        """Display name → (role_id, agent_id) of the first sub-agent created under it here,
        by the create_sub_agent results (TW-PROF-031)."""
        self.terminated: set[tuple[str, int]] = set()
        self.targets: dict[tuple[int, str | None], str | None] = {}
        self.others: dict[int, set[str]] | None = None
        if self.is_leader and session is not None:
            # Sub-agents the leader never creates here existed before this conversation.
            for sub in session.preexisting():
                self.known.setdefault(sub.agent_id or 0, set()).add(sub.role_id or "")

    def emit(self, rule: Rule, message: str, index: int | None, tail: str = "",
             text: str | None = None, offset: int | None = None) -> None:
        """Report ``rule`` at message ``index`` (``tail`` extends its pointer).

        With ``text`` and ``offset``, the finding gets the line, column and snippet of
        that offset inside ``text`` (the string the pointer names).
        """
        emitter = self.emitter
        if rule.code not in emitter.policy.enabled:
            return
        line = column = None
        snippet = None
        if text is not None and offset is not None:
            line, column, snippet = locate(text, offset)
        pointer = None if index is None else f"{self.pointer}/{index}{tail}"
        file_line = self.file_line if index is None or index == self.message_index \
            else self.file_lines.get(index)
        emitter.emit(rule, message, agent=self.name, index=index, pointer=pointer, line=line,
                     column=column, snippet=snippet, file_line=file_line)

    def malformed(self, index: int, problem: str, tail: str = "") -> None:
        """Hand the checks a message, or a part of one (``tail``), that is not what a chat
        message holds."""
        if self.malformed_hand:
            self.malformed_hand(Malformed(index, tail, problem), self.report)

    def emit_at(self, rule: Rule, message: str, index: int, pointer: str, line: int, column: int,
                snippet: str | None) -> None:
        """Report a finding whose position is already known (a parse error)."""
        self.emitter.emit(rule, message, agent=self.name, index=index, pointer=pointer,
                          line=line, column=column, snippet=snippet, file_line=self.file_line)
