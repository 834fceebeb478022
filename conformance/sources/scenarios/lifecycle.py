"""Messages to a waiting agent, termination during an ask, the turn timeout, wait-for cycles,
and calls a router refuses before anything happens (invalid arguments, a forbidden tool)."""

from __future__ import annotations

from typing import Any

from conformance.sources.scenarios.asks import ask_other, failed
from conformance.sources.scenarios.blocks import (
    FSE,
    FSE_TASK,
    TL,
    UIO,
    UIO_TASK,
    agent,
    call,
    calls,
    create,
    created,
    envelope,
    expect,
    says,
    scenario,
    schedule,
    tool,
)

from teamwire.envelope.run_result import render_run_result


def output(sender: str, message_id: str, text: str) -> dict[str, Any]:
    return envelope(sender, "任务完成汇报", message_id, "Output", text)


def message_to_waiting_sub_agent() -> dict[str, Any]:
    return scenario(
        "message-to-waiting-sub-agent",
        "A message to a sub-agent that waits for an answer does not end its wait: it is "
        "queued, and follows the answer once the answer has resolved the ask",
        ["TW-ROUTE-012", "TW-ROUTE-013", "TW-ROUTE-008", "TW-TOOL-012"],
        [agent(TL, calls(create("call_tl_1", "full-stack-engineer", FSE_TASK)), says("Waiting."),
               calls(call("call_tl_2", "send_message_to_sub_agent", agent_id=1,
                          message="Also add rate limits."),
                     call("call_tl_3", "answer_sub_agent_question", agent_id=1,
                          question_id="ask_fse_001", answer="Port 8080.")),
               says("Answered."), says("Done.")),
         agent(FSE, calls(call("call_fse_1", "ask_master", question="Which port?",
                               question_id="ask_fse_001")),
               says("Port 8080, with rate limits."))],
        schedule((TL, 1), (TL, 2), (FSE, 1), (TL, 3), (TL, 4), (FSE, 2), (TL, 5)),
        [expect(TL, 4, tool("call_tl_2", {"success": True, "display_name": FSE,
                                           "message_id": "msg_tl_001", "delivery": "queued"}),
                tool("call_tl_3", {"success": True, "display_name": FSE,
                                   "question_id": "ask_fse_001"}),
                requirements=("TW-ROUTE-013", "TW-TOOL-012")),
         expect(FSE, 2, tool("call_fse_1", envelope(
             TL, "回答", "ans_tl_001", "Answer", "Port 8080.",
             (("question_id", "ask_fse_001"),))["content"]),
                envelope(TL, "消息", "msg_tl_001", "Message", "Also add rate limits."),
                requirements=("TW-ROUTE-008", "TW-ROUTE-012", "TW-ROUTE-013"))])


def terminated_during_an_ask() -> dict[str, Any]:
    return scenario(
        "terminated-during-an-ask",
        "A sub-agent terminated while another waits for its answer: the ask fails with "
        "agent-terminated and the asker goes on",
        ["TW-ROUTE-020", "TW-ROUTE-024", "TW-TOOL-010"],
        [agent(TL, calls(create("call_tl_1", "ui-operator", UIO_TASK),
                         create("call_tl_2", "full-stack-engineer", FSE_TASK)),
               says("Waiting."),
               calls(call("call_tl_3", "terminate_sub_agent", agent_id=1,
                          role_id="full-stack-engineer")),
               says("Terminated."), says("Noted.")),
         agent(UIO, calls(ask_other("call_uio_1", "ask_uio_001", "Which port?")),
               says("Gave up on the port.")),
         agent(FSE, says("API done."), says("Port 8080."))],
        # The engineer's turn with the ask must have begun before it is terminated. The
        # operator's next call, which the termination causes, is answered before the
        # engineer's held call: a router that let the engineer go on would otherwise race
        # the engineer's report against the operator's at the Team Leader.
        schedule((TL, 1), (TL, 2), (FSE, 1), (UIO, 1), (FSE, 2, "await"), (TL, 3), (TL, 4),
                 (UIO, 2), (FSE, 2), (TL, 5)),
        [expect(FSE, 2, envelope(UIO, "提问", "ask_uio_001", "Ask", "Which port?")),
         expect(TL, 4, tool("call_tl_3", {"success": True, "agent_id": 1,
                                           "role_id": "full-stack-engineer",
                                           "display_name": FSE, "status": "terminated"})),
         expect(UIO, 2, tool("call_uio_1", failed("agent-terminated"))),
         expect(TL, 5, output(UIO, "out_uio_001", "Gave up on the port."))])


def terminated_during_its_model_call() -> dict[str, Any]:
    return scenario(
        "terminated-during-its-model-call",
        "A sub-agent terminated while its model call is still out: the call is abandoned, "
        "and once the Team Leader's turn ends the session is over and the router exits "
        "without waiting for the abandoned call",
        ["TW-ROUTE-020", "TW-CERT-004", "TW-TOOL-010"],
        [agent(TL, calls(create("call_tl_1", "full-stack-engineer", FSE_TASK)),
               calls(call("call_tl_2", "terminate_sub_agent", agent_id=1,
                          role_id="full-stack-engineer")),
               says("Stopped.")),
         agent(FSE, says("Never given."))],
        # The engineer's first call arrives and is never answered: only the termination
        # ends it.
        schedule((TL, 1), (FSE, 1, "await"), (TL, 2), (TL, 3)),
        [expect(TL, 3, tool("call_tl_2", {"success": True, "agent_id": 1,
                                           "role_id": "full-stack-engineer",
                                           "display_name": FSE, "status": "terminated"}))])


def turn_timeout() -> dict[str, Any]:
    return scenario(
        "turn-timeout",
        "A sub-agent's turn that outlasts its timeout_seconds is stopped: the Team Leader "
        "gets a completion whose content is a run result of state timeout",
        ["TW-ROUTE-018", "TW-RES-009"],
        [agent(TL, calls(call("call_tl_1", "create_sub_agent", agent_id=1,
                              role_id="full-stack-engineer", task=FSE_TASK, timeout_seconds=1)),
               says("Waiting."), says("Too slow.")),
         agent(FSE, says("Too late."))],
        schedule((TL, 1), (TL, 2), (TL, 3), (FSE, 1)),
        [expect(TL, 3, output(FSE, "out_fse_001", render_run_result(
            FSE, "timeout", "the turn took longer than its timeout of 1 second")))])


def turn_timers_at_one_instant() -> dict[str, Any]:
    return scenario(
        "turn-timers-at-one-instant",
        "Two turn timers due at one instant fire in the order they were started: the "
        "sub-agent created first (the UI Operator, whose name sorts last) times out first; "
        "the Team Leader's reply observed at that instant ends its turn before either fires",
        ["TW-ROUTE-028", "TW-ROUTE-018"],
        [agent(TL, calls(call("call_tl_1", "create_sub_agent", agent_id=1, role_id="ui-operator",
                              task=UIO_TASK, timeout_seconds=1),
                         call("call_tl_2", "create_sub_agent", agent_id=1,
                              role_id="full-stack-engineer", task=FSE_TASK, timeout_seconds=1)),
               says("Waiting."), says("Both too slow.")),
         agent(UIO, says("Too late.")),
         agent(FSE, says("Too late."))],
        # both sub-agents' first model calls are held past their turn timeout; the leader's
        # reply is observed at the timers' instant, before they fire
        schedule((TL, 1), (UIO, 1, "await"), (FSE, 1, "await"), (TL, 2, "at_timer"), (TL, 3),
                 (UIO, 1), (FSE, 1)),
        [expect(TL, 3,
                output(UIO, "out_uio_001", render_run_result(
                    UIO, "timeout", "the turn took longer than its timeout of 1 second")),
                output(FSE, "out_fse_001", render_run_result(
                    FSE, "timeout", "the turn took longer than its timeout of 1 second")))])


def default_turn_timeout() -> dict[str, Any]:
    return scenario(
        "default-turn-timeout",
        "A sub-agent created without timeout_seconds has the router's turn timeout (the "
        "turn_timeout knob): a turn that outlasts it is stopped, and the Team Leader gets a "
        "completion whose content is a run result of state timeout",
        ["TW-ROUTE-018", "TW-RES-009", "TW-CERT-005"],
        [agent(TL, calls(create("call_tl_1", "full-stack-engineer", FSE_TASK)),
               says("Waiting."), says("Too slow.")),
         agent(FSE, says("Too late."))],
        schedule((TL, 1), (TL, 2), (TL, 3), (FSE, 1)),
        [expect(TL, 3, output(FSE, "out_fse_001", render_run_result(
            FSE, "timeout", "the turn took longer than its timeout of 1 second")))],
        knobs={"turn_timeout": 1})


def wait_cycle() -> dict[str, Any]:
    return scenario(
        "wait-cycle",
        "An ask that would close a cycle of agents waiting for one another fails with "
        "wait-cycle; the agent asked first can still answer",
        ["TW-ROUTE-016"],
        [agent(TL, calls(create("call_tl_1", "ui-operator", UIO_TASK),
                         create("call_tl_2", "full-stack-engineer", FSE_TASK)),
               says("Waiting."), says("Noted."), says("Form noted."), says("API noted.")),
         agent(UIO, calls(ask_other("call_uio_1", "ask_uio_001", "Which port?")),
               says("Port 8080 it is.")),
         agent(FSE, says("API done."),
               calls(call("call_fse_1", "ask_other_agent", target_agent_id=1,
                          role_id="ui-operator", message_id="ask_fse_001",
                          content="Which form fields?")),
               calls(call("call_fse_2", "answer_other_agent", source_agent_id=1,
                          role_id="ui-operator", message_id="ask_uio_001", answer="8080.")),
               says("Answered."))],
        schedule((TL, 1), (TL, 2), (FSE, 1), (TL, 3), (UIO, 1), (FSE, 2), (FSE, 3), (UIO, 2),
                 (TL, 4), (FSE, 4), (TL, 5)),
        [expect(FSE, 3, tool("call_fse_1", failed("wait-cycle"))),
         expect(UIO, 2, tool("call_uio_1", envelope(
             FSE, "回答", "ans_fse_001", "Answer", "8080.",
             (("question_id", "ask_uio_001"),))["content"]))])


def refused_calls() -> dict[str, Any]:
    return scenario(
        "refused-calls",
        "An agent_id written 1.0 is no integer (invalid-arguments) and close_sub_agent is no "
        "tool of the Team Leader (forbidden-tool): each call gets its error result, and "
        "nothing else happens",
        ["TW-TOOL-023", "TW-TOOL-004", "TW-TOOL-006", "TW-TOOL-026", "TW-TOOL-032"],
        [agent(TL, calls({"id": "call_tl_1", "name": "create_sub_agent",
                          "arguments": '{"agent_id": 1.0, "role_id": "ui-operator", '
                                       '"task": "Design it."}'},
                         call("call_tl_2", "close_sub_agent", agent_id=1)),
               says("Both refused."))],
        schedule((TL, 1), (TL, 2)),
        [expect(TL, 2, tool("call_tl_1", failed("invalid-arguments")),
                tool("call_tl_2", failed("forbidden-tool")))])


def turn_ended_calls() -> dict[str, Any]:
    return scenario(
        "turn-ended-calls",
        "A turn that times out while its ask waits: the ask gets timeout, the call after it "
        "in the same reply turn-ended, so each call has one result; the sub-agent reads both "
        "when a message starts its next turn",
        ["TW-ROUTE-018", "TW-TOOL-036", "TW-RES-009"],
        [agent(TL, calls(call("call_tl_1", "create_sub_agent", agent_id=1,
                              role_id="full-stack-engineer", task=FSE_TASK, timeout_seconds=1)),
               says("Waiting."), says("Thinking about the port."),
               calls(call("call_tl_2", "send_message_to_sub_agent", agent_id=1,
                          message="Use port 8080.")),
               says("Sent."), says("Noted.")),
         agent(FSE, calls(call("call_fse_1", "ask_master", question="Which port?",
                               question_id="ask_fse_001"),
                          call("call_fse_2", "list_active_sub_agents")),
               says("Using port 8080."))],
        schedule((TL, 1), (TL, 2), (FSE, 1), (TL, 3), (TL, 4), (FSE, 2, "await"), (TL, 5),
                 (FSE, 2), (TL, 6)),
        [expect(TL, 3, envelope(FSE, "提问", "ask_fse_001", "Ask", "Which port?")),
         expect(TL, 4, output(FSE, "out_fse_001", render_run_result(
             FSE, "timeout", "the turn took longer than its timeout of 1 second"))),
         expect(FSE, 2, tool("call_fse_1", failed("timeout")),
                tool("call_fse_2", failed("turn-ended")),
                envelope(TL, "消息", "msg_tl_001", "Message", "Use port 8080.")),
         expect(TL, 6, output(FSE, "out_fse_002", "Using port 8080."))])


def terminated_sub_agent_not_listed() -> dict[str, Any]:
    return scenario(
        "terminated-sub-agent-not-listed",
        "list_active_sub_agents leaves out a terminated sub-agent and keeps the others, in "
        "creation order",
        ["TW-TOOL-015", "TW-ROUTE-020"],
        [agent(TL, calls(create("call_tl_1", "full-stack-engineer", FSE_TASK),
                         create("call_tl_2", "ui-operator", UIO_TASK)),
               says("Waiting."),
               calls(call("call_tl_3", "terminate_sub_agent", agent_id=1,
                          role_id="full-stack-engineer"),
                     call("call_tl_4", "list_active_sub_agents")),
               says("Noted."), says("Done.")),
         agent(FSE, says("The API is done.")),
         agent(UIO, says("The form is designed."))],
        # The operator's first call is held until the list is taken: it is still running.
        schedule((TL, 1), (TL, 2), (UIO, 1, "await"), (FSE, 1), (TL, 3), (TL, 4), (UIO, 1),
                 (TL, 5)),
        [expect(TL, 4, tool("call_tl_3", {"success": True, "agent_id": 1,
                                           "role_id": "full-stack-engineer",
                                           "display_name": FSE, "status": "terminated"}),
                tool("call_tl_4", {"success": True, "agents": [
                    {"agent_id": 1, "role_id": "ui-operator", "display_name": UIO,
                     "status": "running", "summary": ""}]}))])


def answer_to_a_terminated_asker() -> dict[str, Any]:
    return scenario(
        "answer-to-a-terminated-asker",
        "The Team Leader terminates a sub-agent that waits on its ask, then answers the ask: "
        "the answer fails with agent-terminated, the failure of its target, which comes "
        "before not-waiting",
        ["TW-TOOL-037", "TW-TOOL-031"],
        [agent(TL, calls(create("call_tl_1", "full-stack-engineer", FSE_TASK)),
               says("Waiting."),
               calls(call("call_tl_2", "terminate_sub_agent", agent_id=1),
                     call("call_tl_3", "answer_sub_agent_question", agent_id=1,
                          question_id="ask_fse_001", answer="Port 8080.")),
               says("Done.")),
         agent(FSE, calls(call("call_fse_1", "ask_master",
                               question="Which port should the API listen on?",
                               question_id="ask_fse_001")))],
        schedule((TL, 1), (TL, 2), (FSE, 1), (TL, 3), (TL, 4)),
        [expect(TL, 4, tool("call_tl_2", {"success": True, "agent_id": 1,
                                           "role_id": "full-stack-engineer",
                                           "display_name": FSE, "status": "terminated"}),
                tool("call_tl_3", failed("agent-terminated")))])


def terminated_before_its_first_call() -> dict[str, Any]:
    return scenario(
        "terminated-before-its-first-call",
        "A sub-agent that the creating reply terminates makes no model call: its turn would "
        "begin only once that reply has run, and by then its Task is discarded; terminated "
        "again, it fails with agent-terminated",
        ["TW-ROUTE-033", "TW-ROUTE-020", "TW-TOOL-010"],
        [agent(TL, calls(create("call_tl_1", "ui-operator", UIO_TASK),
                         call("call_tl_2", "terminate_sub_agent", agent_id=1,
                              role_id="ui-operator"),
                         call("call_tl_3", "terminate_sub_agent", agent_id=1)),
               says("Stopped before it began.")),
         agent(UIO, says("Never asked for."))],
        schedule((TL, 1), (TL, 2)),
        [expect(TL, 2, tool("call_tl_1", created(1, "ui-operator", UIO, "task_001")),
                tool("call_tl_2", {"success": True, "agent_id": 1, "role_id": "ui-operator",
                                   "display_name": UIO, "status": "terminated"}),
                tool("call_tl_3", failed("agent-terminated")),
                requirements=("TW-ROUTE-033", "TW-TOOL-010"))])


SCENARIOS = [message_to_waiting_sub_agent, terminated_during_an_ask,
             terminated_before_its_first_call,
             terminated_during_its_model_call, terminated_sub_agent_not_listed, turn_timeout,
             turn_timers_at_one_instant, default_turn_timeout, wait_cycle, refused_calls,
             turn_ended_calls, answer_to_a_terminated_asker]
