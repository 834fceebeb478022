"""Level astrion: what a router of profile astrion shows its models (TW-PROF-032 to
TW-PROF-037, TW-CERT-019), each scenario against the tool set of astrion today (16aaea6b),
and the calls by instance number of astrion as it was (10654c4) that TW-PROF-035 and
TW-PROF-036 keep.

Ids the router chooses are matched by shape (``<any id>``, and ``<10 hex digits>`` where the
profile draws them), results whose other members are astrion's own by the members the
profile fixes (``<further members allowed>``); the envelopes are in their strict forms."""

from __future__ import annotations

from typing import Any

from conformance.sources.scenarios.asks import failed
from conformance.sources.scenarios.blocks import (
    FSE,
    FSE_TASK,
    TL,
    TOKENS,
    UIO,
    UIO2,
    UIO2_TASK,
    UIO_TASK,
    call,
    calls,
    expect,
    says,
    scenario,
    schedule,
    tool,
    user,
)

from teamwire.conformance.matching import FURTHER_MEMBERS
from teamwire.envelope import Envelope, render

PROFILE = "astrion"
ANY_ID = "<any id>"
HEX = "<10 hex digits>"
STOP_CANCELLED_ASK = "<any text>等待回答被取消（软停止）<any text>"
"""The result of an ask a stop cancelled: an error text that holds astrion's words "the wait
for an answer was cancelled (soft stop)" (TW-PROF-038)."""


def envelope(sender: str, label: str, message_id: str, tag: str,
             content: str) -> dict[str, Any]:
    """A user message holding one envelope in its strict form, whose id may be a shape."""
    text = render(Envelope(sender, label, "shape_of_the_id", tag, content, ()))
    return user(text.replace("\nid: shape_of_the_id\n", f"\nid: {message_id}\n", 1))


def agent(name: str, *replies: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "token": TOKENS[name], "replies": list(replies)}


def create(call_id: str, role_id: str, task: str, **more: Any) -> dict[str, Any]:
    """create_sub_agent as astrion today calls it: no agent_id, the router numbers."""
    return call(call_id, "create_sub_agent", role_id=role_id, task=task, **more)


def succeeded(**members: Any) -> dict[str, Any]:
    """A success result of which the profile fixes only ``members``."""
    return {"success": True, **members, FURTHER_MEMBERS: True}


def output(sender: str, text: str) -> dict[str, Any]:
    return envelope(sender, "任务完成汇报", ANY_ID, "Output", text)


def display_names() -> dict[str, Any]:
    listed = {"success": True, "agents": [
        {"display_name": UIO, FURTHER_MEMBERS: True},
        {"display_name": UIO2, FURTHER_MEMBERS: True},
        {"display_name": FSE, "status": "terminated", FURTHER_MEMBERS: True}],
        FURTHER_MEMBERS: True}
    return scenario(
        "astrion-display-names",
        "Profile astrion: create_sub_agent without agent_id numbers each role's instances "
        "1, 2, ...; send_message_to_sub_agent and terminate_sub_agent name sub-agents by "
        "display name, in other letter case too; list_active_sub_agents lists the "
        "terminated one; an intent argument changes nothing",
        ["TW-PROF-032", "TW-PROF-034", "TW-PROF-015", "TW-PROF-026", "TW-PROF-024",
         "TW-PROF-014", "TW-CERT-019", "TW-CERT-027"],
        [agent(TL, calls(create("call_tl_1", "ui-operator", UIO_TASK,
                                intent="Design the forms"),
                         create("call_tl_2", "ui-operator", UIO2_TASK),
                         create("call_tl_3", "full-stack-engineer", FSE_TASK)),
               says("Waiting."), says("Noted."), says("Noted."),
               calls(call("call_tl_4", "send_message_to_sub_agent", display_name="ui operator_2",
                          message="Make it blue."),
                     call("call_tl_5", "terminate_sub_agent", display_name=FSE),
                     call("call_tl_6", "list_active_sub_agents")),
               says("Waiting for the blue form."), says("Done.")),
         agent(UIO, says("The sign-up form is designed.")),
         agent(UIO2, says("The sign-in form is designed."), says("The sign-in form is blue.")),
         agent(FSE, says("The API is written."))],
        schedule((TL, 1), (TL, 2), (UIO, 1), (TL, 3), (UIO2, 1), (TL, 4), (FSE, 1), (TL, 5),
                 (TL, 6), (UIO2, 2), (TL, 7)),
        [expect(TL, 2, tool("call_tl_1", succeeded(display_name=UIO)),
                tool("call_tl_2", succeeded(display_name=UIO2)),
                tool("call_tl_3", succeeded(display_name=FSE))),
         expect(UIO, 1, envelope(TL, "任务发布", ANY_ID, "Task", UIO_TASK)),
         expect(UIO2, 1, envelope(TL, "任务发布", ANY_ID, "Task", UIO2_TASK)),
         expect(TL, 3, output(UIO, "The sign-up form is designed.")),
         expect(TL, 4, output(UIO2, "The sign-in form is designed.")),
         expect(TL, 5, output(FSE, "The API is written.")),
         expect(TL, 6, tool("call_tl_4", succeeded(display_name=UIO2)),
                tool("call_tl_5", succeeded(display_name=FSE)),
                tool("call_tl_6", listed)),
         expect(UIO2, 2, envelope(TL, "消息", ANY_ID, "Message", "Make it blue.")),
         expect(TL, 7, output(UIO2, "The sign-in form is blue."))],
        level=PROFILE, profile=PROFILE)


def ask_master() -> dict[str, Any]:
    return scenario(
        "astrion-ask-master",
        "Profile astrion: answer_sub_agent_question names the question by question_id "
        "alone and the asker reads 'Team Leader 的回答：' and the answer as text; an ask "
        "without question_id gets the id ask_master_ and ten hex digits",
        ["TW-PROF-033", "TW-PROF-034", "TW-PROF-018", "TW-PROF-021", "TW-PROF-027",
         "TW-PROF-028", "TW-CERT-019", "TW-CERT-027"],
        [agent(TL, calls(create("call_tl_1", "full-stack-engineer", FSE_TASK)),
               says("Waiting."),
               calls(call("call_tl_2", "answer_sub_agent_question", question_id="ask_fse_001",
                          answer="Port 8080.")),
               says("Answered."), says("I will decide that later."), says("Noted.")),
         agent(FSE, calls(call("call_fse_1", "ask_master", question="Which port?",
                               question_id="ask_fse_001")),
               calls(call("call_fse_2", "ask_master", question="And which host?")),
               says("The API listens on localhost:8080."))],
        schedule((TL, 1), (TL, 2), (FSE, 1), (TL, 3), (TL, 4), (FSE, 2), (TL, 5), (FSE, 3),
                 (TL, 6)),
        [expect(TL, 3, envelope(FSE, "提问", "ask_fse_001", "Ask", "Which port?")),
         expect(TL, 4, tool("call_tl_2", succeeded())),
         expect(FSE, 2, tool("call_fse_1", "Team Leader 的回答：\nPort 8080.")),
         expect(TL, 5, envelope(FSE, "提问", f"ask_master_{HEX}", "Ask", "And which host?")),
         expect(FSE, 3, tool("call_fse_2", failed("unanswered"))),
         expect(TL, 6, output(FSE, "The API listens on localhost:8080."))],
        level=PROFILE, profile=PROFILE,
        knobs={"unanswered_asks": "fail"})


def ask_other_agent() -> dict[str, Any]:
    return scenario(
        "astrion-ask-other-agent",
        "Profile astrion: ask_other_agent names its peer by target_display_name, "
        "answer_other_agent by question_id alone; the answerer reads '回复已发送。', the asker "
        "'子智能体的回答：' and the answer; a sub-agent's list_active_sub_agents is text; an "
        "ask without question_id gets the id ask_other_ and ten hex digits",
        ["TW-PROF-032", "TW-PROF-033", "TW-PROF-034", "TW-PROF-022", "TW-PROF-023",
         "TW-PROF-026", "TW-PROF-027", "TW-PROF-028", "TW-CERT-019", "TW-CERT-027"],
        [agent(TL, calls(create("call_tl_1", "ui-operator", UIO_TASK),
                         create("call_tl_2", "full-stack-engineer", FSE_TASK)),
               says("Waiting."), says("Noted."), says("Noted."), says("Noted."),
               says("Form noted.")),
         agent(UIO, calls(call("call_uio_1", "list_active_sub_agents"),
                          call("call_uio_2", "ask_other_agent", target_display_name=FSE,
                               question="Which endpoint?", question_id="ask_uio_001")),
               calls(call("call_uio_3", "ask_other_agent", target_display_name=FSE,
                          question="And which method?")),
               says("The form posts to /signup.")),
         agent(FSE, says("The API skeleton is done."),
               calls(call("call_fse_1", "answer_other_agent", question_id="ask_uio_001",
                          answer="/signup.")),
               says("Answered the operator."), says("Use POST."))],
        schedule((TL, 1), (TL, 2), (FSE, 1), (TL, 3), (UIO, 1), (FSE, 2), (FSE, 3), (TL, 4),
                 (UIO, 2), (FSE, 4), (TL, 5), (UIO, 3), (TL, 6)),
        [expect(FSE, 2, envelope(UIO, "提问", "ask_uio_001", "Ask", "Which endpoint?")),
         expect(FSE, 3, tool("call_fse_1", "回复已发送。")),
         expect(UIO, 2, tool("call_uio_1", "当前会话活跃子智能体（共 <any text>"),
                tool("call_uio_2", "子智能体的回答：\n/signup.")),
         expect(TL, 4, output(FSE, "Answered the operator.")),
         expect(FSE, 4, envelope(UIO, "提问", f"ask_other_{HEX}", "Ask", "And which method?")),
         expect(TL, 5, output(FSE, "Use POST.")),
         expect(UIO, 3, tool("call_uio_3", failed("unanswered"))),
         expect(TL, 6, output(UIO, "The form posts to /signup."))],
        level=PROFILE, profile=PROFILE,
        knobs={"unanswered_asks": "fail"})


def stop_sub_agent() -> dict[str, Any]:
    return scenario(
        "astrion-stop-sub-agent",
        "Profile astrion: stop_sub_agent by display name pauses a sub-agent that waits on "
        "its ask: the ask gets astrion's cancellation text and an answer to it fails with not-waiting, the "
        "message queued for it stays queued, and the next message starts its next turn with "
        "both; get_sub_agent_status by display_names reports it idle and a name that names "
        "nobody as not found; a message to a sub-agent waiting on a later ask still waits",
        ["TW-PROF-035", "TW-PROF-036", "TW-PROF-016", "TW-PROF-025", "TW-PROF-019",
         "TW-PROF-026", "TW-PROF-032", "TW-PROF-038", "TW-PROF-039", "TW-CERT-019", "TW-CERT-027"],
        [agent(TL, calls(create("call_tl_1", "ui-operator", UIO_TASK)),
               says("Waiting."),
               calls(call("call_tl_2", "send_message_to_sub_agent", display_name=UIO,
                          message="The logo is navy."),
                     call("call_tl_3", "stop_sub_agent", display_name="ui operator_1"),
                     call("call_tl_4", "get_sub_agent_status",
                          display_names=[UIO, "UI Operator_9"])),
               calls(call("call_tl_5", "answer_sub_agent_question", question_id="ask_uio_001",
                          answer="Navy.")),
               calls(call("call_tl_6", "send_message_to_sub_agent", display_name=UIO,
                          message="Use navy for now.")),
               says("Waiting for the form."),
               calls(call("call_tl_7", "send_message_to_sub_agent", display_name=UIO,
                          message="Keep the labels short."),
                     call("call_tl_8", "answer_sub_agent_question", question_id="ask_uio_002",
                          answer="Slate grey.")),
               says("Waiting."), says("Done.")),
         agent(UIO, calls(call("call_uio_1", "ask_master", question="Which shade of blue?",
                               question_id="ask_uio_001")),
               calls(call("call_uio_2", "ask_master", question="Which grey for the text?",
                          question_id="ask_uio_002")),
               says("The form uses navy and slate grey, with short labels."))],
        schedule((TL, 1), (TL, 2), (UIO, 1), (TL, 3), (TL, 4), (TL, 5), (TL, 6), (UIO, 2),
                 (TL, 7), (TL, 8), (UIO, 3), (TL, 9)),
        [expect(TL, 3, envelope(UIO, "提问", "ask_uio_001", "Ask", "Which shade of blue?")),
         expect(TL, 4, tool("call_tl_2", succeeded(display_name=UIO)),
                tool("call_tl_3", succeeded(display_name=UIO)),
                tool("call_tl_4", succeeded(results=[
                    {"found": True, "display_name": UIO, "status": "idle", FURTHER_MEMBERS: True},
                    {"found": False, "display_name": "UI Operator_9", FURTHER_MEMBERS: True}]))),
         expect(TL, 5, tool("call_tl_5", failed("not-waiting"))),
         expect(TL, 6, tool("call_tl_6", succeeded(display_name=UIO))),
         expect(UIO, 2, tool("call_uio_1", STOP_CANCELLED_ASK),
                envelope(TL, "消息", ANY_ID, "Message", "The logo is navy."),
                envelope(TL, "消息", ANY_ID, "Message", "Use navy for now.")),
         expect(TL, 7, envelope(UIO, "提问", "ask_uio_002", "Ask", "Which grey for the text?")),
         expect(TL, 8, tool("call_tl_7", succeeded(display_name=UIO)),
                tool("call_tl_8", succeeded())),
         expect(UIO, 3, tool("call_uio_2", "Team Leader 的回答：\nSlate grey."),
                envelope(TL, "消息", ANY_ID, "Message", "Keep the labels short.")),
         expect(TL, 9, output(UIO, "The form uses navy and slate grey, with short labels."))],
        level=PROFILE, profile=PROFILE)


def stop_during_model_call() -> dict[str, Any]:
    """The sub-agent's model call is held while the Team Leader stops it; the reply then
    released (progress text and an ask_master) is dropped: the Team Leader receives neither,
    and the message that starts the sub-agent's next turn follows its Task directly."""
    dropped = {**calls(call("call_uio_1", "ask_master", question="Which colour for the logo?",
                            question_id="ask_uio_009"),
                       text="Half of the sign-up form is drawn."), "dropped": True}
    return scenario(
        "astrion-stop-during-model-call",
        "Profile astrion: stop_sub_agent while the sub-agent's model call is in flight ends "
        "its turn and reports it idle; the reply that call then gets is dropped: it is not "
        "in the sub-agent's conversation, its ask never reaches the Team Leader, its text is "
        "no Output, and the next message starts the sub-agent's next turn",
        ["TW-PROF-037", "TW-PROF-035", "TW-PROF-036", "TW-PROF-016", "TW-PROF-026",
         "TW-PROF-032", "TW-CERT-019", "TW-CERT-027"],
        [agent(TL, calls(create("call_tl_1", "ui-operator", UIO_TASK)),
               calls(call("call_tl_2", "stop_sub_agent", display_name=UIO),
                     call("call_tl_3", "get_sub_agent_status", display_names=[UIO])),
               calls(call("call_tl_4", "send_message_to_sub_agent", display_name=UIO,
                          message="Design the sign-in form instead.")),
               says("Waiting for the sign-in form."), says("Done.")),
         agent(UIO, dropped, says("The sign-in form is designed."))],
        schedule((TL, 1), (UIO, 1, "await"), (TL, 2), (TL, 3, "await"), (UIO, 1), (TL, 3),
                 (TL, 4), (UIO, 2), (TL, 5)),
        [expect(TL, 2, tool("call_tl_1", succeeded(display_name=UIO))),
         expect(TL, 3, tool("call_tl_2", succeeded(display_name=UIO)),
                tool("call_tl_3", succeeded(results=[
                    {"found": True, "display_name": UIO, "status": "idle",
                     FURTHER_MEMBERS: True}]))),
         expect(TL, 4, tool("call_tl_4", succeeded(display_name=UIO))),
         expect(UIO, 2, envelope(TL, "消息", ANY_ID, "Message",
                                 "Design the sign-in form instead.")),
         expect(TL, 5, output(UIO, "The sign-in form is designed."))],
        level=PROFILE, profile=PROFILE)


def status_by_number() -> dict[str, Any]:
    return scenario(
        "astrion-status-by-number",
        "Profile astrion, as astrion was: get_sub_agent_status with agent_ids reports, in "
        "the order given, each sub-agent's instance number, display name and status, and a "
        "number that names nobody as not found; stop_sub_agent by agent_id pauses a "
        "sub-agent waiting on its ask, whose status is then idle, and a message starts its "
        "next turn after the ask's cancellation text",
        ["TW-PROF-035", "TW-PROF-036", "TW-PROF-016", "TW-PROF-019", "TW-PROF-025",
         "TW-PROF-032", "TW-PROF-038", "TW-PROF-039", "TW-CERT-019", "TW-CERT-027"],
        [agent(TL, calls(create("call_tl_1", "ui-operator", UIO_TASK),
                         create("call_tl_2", "ui-operator", UIO2_TASK)),
               says("Waiting."), says("Thinking about the font."),
               calls(call("call_tl_3", "get_sub_agent_status", agent_ids=[2, 1, 7])),
               calls(call("call_tl_4", "stop_sub_agent", agent_id=2),
                     call("call_tl_5", "get_sub_agent_status", agent_ids=[2])),
               calls(call("call_tl_6", "send_message_to_sub_agent", display_name=UIO2,
                          message="Use Inter.")),
               says("Waiting."), says("Done.")),
         agent(UIO, says("The sign-up form is designed.")),
         agent(UIO2, calls(call("call_uio2_1", "ask_master", question="Which font?",
                                question_id="ask_uio_002")),
               says("The sign-in form uses Inter."))],
        schedule((TL, 1), (TL, 2), (UIO2, 1), (TL, 3), (UIO, 1), (TL, 4), (TL, 5), (TL, 6),
                 (TL, 7), (UIO2, 2), (TL, 8)),
        [expect(TL, 3, envelope(UIO2, "提问", "ask_uio_002", "Ask", "Which font?")),
         expect(TL, 4, output(UIO, "The sign-up form is designed.")),
         expect(TL, 5, tool("call_tl_3", succeeded(results=[
             {"found": True, "agent_id": 2, "display_name": UIO2, "status": "waiting",
              FURTHER_MEMBERS: True},
             {"found": True, "agent_id": 1, "display_name": UIO, "status": "completed",
              FURTHER_MEMBERS: True},
             {"found": False, "agent_id": 7, FURTHER_MEMBERS: True}]))),
         expect(TL, 6, tool("call_tl_4", succeeded(display_name=UIO2)),
                tool("call_tl_5", succeeded(results=[
                    {"found": True, "agent_id": 2, "display_name": UIO2, "status": "idle",
                     FURTHER_MEMBERS: True}]))),
         expect(TL, 7, tool("call_tl_6", succeeded(display_name=UIO2))),
         expect(UIO2, 2, tool("call_uio2_1", STOP_CANCELLED_ASK),
                envelope(TL, "消息", ANY_ID, "Message", "Use Inter.")),
         expect(TL, 8, output(UIO2, "The sign-in form uses Inter."))],
        level=PROFILE, profile=PROFILE)


SCENARIOS = [display_names, ask_master, ask_other_agent, stop_sub_agent, stop_during_model_call,
             status_by_number]
