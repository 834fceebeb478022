"""The cases of astrion.json: profile astrion on sessions as astrion writes them, astrion today
(16aaea6b) and astrion as it was (10654c4), each dialect difference on its own, and what
astrion does that stays a breach (TW-PROF-026 to TW-PROF-029, TW-PROF-024)."""

from __future__ import annotations

from typing import Any

from conformance.sources.transcripts.astrion_sessions import (
    EARLIER,
    MODE_NOTICE,
    RESTORE_NOTICE,
    TODAY,
    VERSIONS,
    AstrionSession,
    Sub,
)
from conformance.sources.transcripts.blocks import TL, case

PROFILE = "astrion"


def team(version: str, *, swallowed: bool = False, plain_answer: bool = False,
         injected: bool = False, notices: bool = False) -> AstrionSession:
    """A whole session of one astrion version: two sub-agents, an ask of the Team Leader and
    one between them, every targeting tool, a custom role; with the four breaches astrion's
    code makes when asked for (each reported, TW512, TW411, TW113)."""
    s = AstrionSession(version)
    ui = s.create("ui-operator", "UI Operator", "Design the colour palette.")
    # Earlier astrion numbered sub-agents in one space for the whole conversation, so two
    # roles could not both have a first instance: its sessions show one role twice.
    peer = s.create(*(("full-stack-engineer", "Full-Stack Engineer") if version == TODAY
                      else ("ui-operator", "UI Operator")), "Build the page skeleton.")
    ask = s.ask_master(ui, "Should the palette follow the blue of the logo?")
    s.answer(ask, "Yes, start from the logo blue.")
    s.say(ui, "The palette is done: #1E3A8A, #3B82F6, #F8FAFC.")
    ask = s.ask_other(peer, ui, "Which blue is the primary colour?",
                      f"Asking {ui.name} which blue is primary.")
    s.answer_other(ask, "#1E3A8A.")
    # astrion takes the next output of the answerer as the answer again and drops it
    s.say(ui, "I told the engineer which blue is primary." if swallowed else "", relayed=False)
    if plain_answer:
        ask = s.ask_other(peer, ui, "Which font goes with it?", f"Asking {ui.name} for the font.")
        s.answer_in_output(ask, "Inter, at 16 px for body text.")
    s.list_peers(peer)
    s.work(peer, "Writing the page.", "write_file",
           {"file_path": "index.html", "content": "<!doctype html>"}, "写入成功")
    s.status(ui, peer)
    if injected:
        call_id = s.work(peer, "Running the build.", "run_command",
                         {"command": "npm run build", "timeout": 60}, "", done=False)
        s.send(peer, f"Use the palette of {ui.name}.")
        s.result(peer, call_id, "built in 3 s")
    else:
        s.send(peer, f"Use the palette of {ui.name}.")
    s.say(peer, "The page is built with the brand palette.")
    if notices:
        s.notice(peer, RESTORE_NOTICE)
        s.notice(ui, MODE_NOTICE)
    s.stop(peer)
    s.terminate(ui)
    s.list_active()
    s.custom_role("api-designer", "API Designer", "Design the HTTP API of the page.")
    if version == TODAY:
        s.create("api-designer", "API Designer", "Design the API of the sign-up form.")
    s.say_leader("The landing page is built.")
    return s


def pair(version: str) -> tuple[AstrionSession, Sub, Sub]:
    """A session with two sub-agents, the Team Leader's at message 0 to 4."""
    s = AstrionSession(version)
    ui = s.create("ui-operator", "UI Operator", "Design the colour palette.")
    peer = s.create(*(("full-stack-engineer", "Full-Stack Engineer") if version == TODAY
                      else ("ui-operator", "UI Operator")), "Build the page skeleton.")
    return s, ui, peer


def astrion_cases() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for version in VERSIONS:
        out += _version_cases(version)
    return out


def _version_cases(v: str) -> list[dict[str, Any]]:
    tag = f"astrion {v}"
    named = "display name" if v == TODAY else "instance number"
    cases: list[dict[str, Any]] = []

    def add(description: str, s: AstrionSession,
            expect: list[tuple[str, str | None, int | None]],
            requirements: tuple[str, ...] = ()) -> None:
        cases.append(case(f"{description} ({tag})", s.bundle(), expect, profile=PROFILE,
                          requirements=requirements))

    # -- a whole session, and its breaches ---------------------------------------------------
    # The session calls every tool in its version's dialect: intent on every leader call,
    # create_sub_agent without agent_id, stop_sub_agent, answers by question_id, body_prompt,
    # ask_master without question_id; earlier astrion also agent_ids and target_agent_id.
    dialect: tuple[str, ...] = ("TW-PROF-014", "TW-PROF-015", "TW-PROF-016", "TW-PROF-018", "TW-PROF-020",
               "TW-PROF-021", "TW-PROF-023")
    if v != TODAY:
        dialect += ("TW-PROF-019", "TW-PROF-022")
    add("TW508 near miss: a whole session as astrion writes it, every difference of its "
        "version at once (TW-PROF-024, TW-PROF-026 to TW-PROF-029)", team(v), [], dialect)
    ui_name = "UI Operator_1"
    peer_name = "Full-Stack Engineer_1" if v == TODAY else "UI Operator_2"
    add("TW512 astrion takes the output after answer_other_agent as the answer again: it never "
        "reaches the Team Leader (TW-TYPE-016, TW-PROF-028)", team(v, swallowed=True),
        [("TW512", ui_name, 8)])
    add("TW512 a peer's question answered in natural output: astrion gives it to the asker and "
        "never to the Team Leader (TW-TYPE-016, TW-PROF-028)", team(v, plain_answer=True),
        [("TW512", ui_name, 10)])
    add("TW411 astrion inserts the Team Leader's Message while run_command is still open "
        "(TW-ROUTE-010)", team(v, injected=True), [("TW411", peer_name, 8)])
    add("TW113 astrion's notices on restore and on a mode change use the retired prefix "
        "(TW-SEC-010, TW-SEC-011)", team(v, notices=True),
        [("TW113", ui_name, 9), ("TW113", peer_name, 10)])

    # -- naming the target (TW-PROF-026, TW-PROF-029) ----------------------------------------
    s, ui, peer = pair(v)
    s.status(ui, peer)
    s.send(ui, "Use the logo blue.")
    s.stop(peer)
    s.terminate(peer)
    add(f"TW402 near miss: stop, terminate, send and status name sub-agents by {named} "
        "(TW-PROF-026, TW-PROF-029)", s, [])

    s, ui, _peer = pair(v)
    s.leader_call("stop_sub_agent", {"display_name": 1} if v == TODAY
                  else {"agent_id": "UI Operator_1"}, {"success": True})
    # A number that is no integer is also reported as such, as under strict.
    add("TW402 stop_sub_agent names its target with the wrong type (TW-TOOL-023, TW-PROF-029)",
        s, [("TW402", TL, 5)] * (1 if v == TODAY else 2))

    s, ui, _peer = pair(v)
    s.leader_call("send_message_to_sub_agent",
                  {"display_name": "UI Operator_7", "message": "Hello."} if v == TODAY
                  else {"agent_id": 7, "message": "Hello."},
                  {"success": True, "display_name": "UI Operator_7"})
    add("TW408 send_message_to_sub_agent succeeded naming no sub-agent of the session "
        "(TW-TOOL-027, TW-PROF-026)", s, [("TW408", TL, 5)])

    if v == TODAY:
        s, ui, _peer = pair(v)
        s.leader_call("send_message_to_sub_agent",
                      {"display_name": "ui operator_1", "message": "Use the logo blue."},
                      {"success": True, "display_name": "UI Operator_1"})
        ui.messages.append({"role": "user", "content": s.envelope(
            TL, "消息", s.hex_id("msg"), "Message", "Use the logo blue.")})
        add("TW408 near miss: a display name in other letter case names the sub-agent, as "
            "astrion looks it up (TW-PROF-026)", s, [])

    s, ui, peer = pair(v)
    ask = s.ask_other(peer, ui, "Which blue is the primary colour?",
                      f"Asking {ui.name} which blue is primary.")
    s.answer_other(ask, "#1E3A8A.")
    ui.messages.append({"role": "assistant", "content": ""})
    add(f"TW511 near miss: ask_other_agent names its peer by {named}, the Ask reaches it and "
        "answer_other_agent answers by question id (TW-PROF-022, TW-PROF-023, TW-PROF-026)",
        s, [])

    # -- ids astrion gives asks (TW-PROF-027) ------------------------------------------------
    s, ui, peer = pair(v)
    ask = s.ask_master(ui, "Should the palette follow the logo blue?")
    s.answer(ask, "Yes.")
    add("TW304 near miss: an Ask without a chosen id gets ask_master_ and ten hex digits "
        "(TW-PROF-027, TW-PROF-021)", s, [])

    s, ui, peer = pair(v)
    call_id = s.call(ui.messages, "ask_master", {"question": "Blue?",
                                                 "question_id": "ask_master_logo-blue"})
    s.leader.append({"role": "user", "content": s.envelope(
        ui.name, "提问", "ask_master_logo-blue", "Ask", "Blue?", (("subtype", "ask_master"),))})
    s.leader_call("answer_sub_agent_question",
                  {"question_id": "ask_master_logo-blue", "answer": "Yes."},
                  {"success": True, "question_id": "ask_master_logo-blue"})
    s.result(ui, call_id, "Team Leader 的回答：\nYes.")
    add("TW304 an id the asker chose that is not astrion's shape (TW-ID-012, TW-PROF-027)", s,
        [("TW304", ui_name, 2), ("TW304", TL, 5)])

    # -- results shown as text (TW-PROF-028, TW-PROF-024) -------------------------------------
    s, ui, peer = pair(v)
    ask = s.ask_master(ui, "Should the palette follow the logo blue?")
    s.answer(ask, "Yes.")
    ui.messages[-1]["content"] = "Team Leader 的回答：\nNo."
    add("TW508 the text astrion returns to ask_master is not the answer the Team Leader gave "
        "(TW-TOOL-014, TW-PROF-028)", s, [("TW508", TL, 6)])

    s, ui, peer = pair(v)
    call_id = s.call(ui.messages, "ask_master", {"question": "Blue?"})
    s.leader.append({"role": "user", "content": s.envelope(
        ui.name, "提问", s.hex_id("ask_master"), "Ask", "Blue?", (("subtype", "ask_master"),))})
    s.result(ui, call_id, "等待回答超时")
    add("TW504 near miss: any other text astrion returns to an ask is an error result, which "
        "does not say whether the Ask went out (TW-PROF-028)", s, [])

    s, ui, peer = pair(v)
    s.terminate(ui)
    s.list_active()
    s.list_peers(peer)
    add("TW416 near miss: list_active_sub_agents lists the terminated sub-agent, as JSON to the "
        "Team Leader and as text to a sub-agent (TW-PROF-024, TW-PROF-028)", s, [])

    s, ui, peer = pair(v)
    s.list_active()
    s.payloads[s.leader[-2]["tool_calls"][0]["id"]]["agents"][0]["status"] = "paused"
    s.leader[-1]["content"] = s.leader[-1]["content"].replace('"running"', '"paused"', 1)
    add("TW416 a status that is none of astrion's (TW-ROUTE-001, TW-PROF-024)", s,
        [("TW416", TL, 6)])

    s, ui, peer = pair(v)
    ask = s.ask_other(peer, ui, "Which blue?", f"Asking {ui.name} which blue.")
    s.answer_other(ask, "#1E3A8A.")
    ui.messages[-1]["content"] = '{"sent": true}'
    ui.messages.append({"role": "assistant", "content": ""})
    add("TW416 a JSON result of answer_other_agent without success, where astrion writes text "
        "(TW-TOOL-032, TW-PROF-028)", s, [("TW416", ui_name, 4)])

    # -- refusals as astrion's tools write them (TW-PROF-030) ---------------------------------
    s, ui, _peer = pair(v)
    s.leader_call("send_message_to_sub_agent",
                  {"display_name": "UI Operator_7", "message": "Hello."} if v == TODAY
                  else {"agent_id": 7, "message": "Hello."},
                  {"success": False, "error": "子智能体不存在: UI Operator_7"})
    s.leader_call("get_sub_agent_status", {"display_names": []} if v == TODAY
                  else {"agent_ids": []}, {"success": False, "error": "必须指定至少一个子智能体"})
    add("TW416 near miss: astrion's tools refuse a call with the reason as text in error, an "
        "error result that names no code; the refused send names nobody and sent nothing "
        "(TW-PROF-030, TW-TOOL-027)", s, [])

    s, ui, _peer = pair(v)
    s.leader_call("send_message_to_sub_agent",
                  {"display_name": "UI Operator_7", "message": "Hello."} if v == TODAY
                  else {"agent_id": 7, "message": "Hello."}, {"success": False, "error": " "})
    add("TW416 an error result whose error text is blank explains nothing (TW-TOOL-032, "
        "TW-PROF-030)", s, [("TW416", TL, 6)])
    if v == TODAY:
        cases.extend(_lone_leader_cases(tag))
    return cases


def _lone_leader_cases(tag: str) -> list[dict[str, Any]]:
    """A conversation of the Team Leader linted alone: display names resolved by the
    create_sub_agent results it holds (TW-PROF-031)."""
    def lone(description: str, s: AstrionSession,
             expect: list[tuple[str, str | None, int | None]]) -> dict[str, Any]:
        return case(f"{description} ({tag})", s.leader, expect, profile=PROFILE, agent=TL)

    s, ui, _peer = pair(TODAY)
    s.terminate(ui)
    s.leader_call("send_message_to_sub_agent",
                  {"display_name": "ui operator_1", "message": "One more change."},
                  {"success": True, "display_name": ui.name})
    out = [lone("TW409 alone, the Team Leader's conversation names by their create results "
                "sub-agents whose number two roles share: a message to the terminated one, in "
                "other letter case, did not fail (TW-PROF-031, TW-ROUTE-020)", s,
                [("TW409", TL, 7)])]

    s, ui, _peer = pair(TODAY)
    s.custom_role("designer", "UI Operator", "Design the screens.")
    s.create("designer", "UI Operator", "Design the settings screen.")
    s.terminate(ui)
    s.leader_call("send_message_to_sub_agent",
                  {"display_name": "UI Operator_1", "message": "One more change."},
                  {"success": True, "display_name": "UI Operator_1"})
    out.append(lone("TW409 alone, a display name two sub-agents of different roles share names "
                    "the first created, as astrion looks it up: the terminated one (TW-PROF-031, "
                    "TW-PROF-026)", s, [("TW409", TL, 11)]))

    s, _ui, _peer = pair(TODAY)
    s.leader_call("send_message_to_sub_agent",
                  {"display_name": "Researcher_1", "message": "Hello."},
                  {"success": True, "display_name": "Researcher_1"})
    out.append(lone("TW408 near miss: alone, the Team Leader's conversation need not show every "
                    "sub-agent, so a name no create result gives is not reported as nobody's "
                    "(TW-PROF-031)", s, []))
    return out


__all__ = ["EARLIER", "TODAY", "astrion_cases", "team"]
