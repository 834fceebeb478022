"""The demo session: Team Leader, UI Operator_1 and Full-Stack Engineer_1, scripted.

It walks through every routing situation of the protocol on virtual time:
task publish, progress output, ask_master and its answer, ask_other_agent and
answer_other_agent, guidance while running (after an ambiguous agent_id),
a message that arrives during a final turn, ask_sub_agent answered by output,
and completion reports.

The check of what the demo writes (schema and ``teamwire lint``) belongs to the
command line (``teamwire.cli.demo_cmd``): the router does not depend on the linter.
"""

from __future__ import annotations

from teamwire.router.runtime import ScriptedAgent, Session, Step, VirtualClock
from teamwire.router.runtime.driver import AgentDriver
from teamwire.router.runtime.session import Listener
from teamwire.router.store.base import Store

REQUEST = "Build a sign-up page: a colour scheme and form from design, an API behind it."

LEADER_STEPS = [
    Step("I will split this between a UI Operator and a Full-Stack Engineer.", (
        ("create_sub_agent", {"agent_id": 1, "role_id": "ui-operator",
                              "task": "Design the colour scheme and the sign-up form; "
                                      "write design.md."}),
        ("create_sub_agent", {"agent_id": 1, "role_id": "full-stack-engineer",
                              "task": "Build the sign-up API; write api.md.",
                              "acceptance": ["POST /api/users documented in api.md"]}),
    ), delay=1.0),
    Step(None, (("send_message_to_sub_agent",
                 {"agent_id": 1, "message": "Do not create a new API yet."}),), delay=1.5),
    Step(None, (("send_message_to_sub_agent",
                 {"agent_id": 1, "role_id": "ui-operator",
                  "message": "Do not create a new API; first check whether the existing auth "
                             "module can be reused."}),), delay=0.5),
    Step(None, (("answer_sub_agent_question",
                 {"agent_id": 1, "role_id": "full-stack-engineer", "question_id": "ask_fse_001",
                  "answer": "Trunk-based: short-lived branches, rebase on main."}),), delay=1.0),
    Step(None, (("send_message_to_sub_agent",
                 {"agent_id": 1, "role_id": "ui-operator",
                  "message": "Please also add a dark-mode variant."}),), delay=3.5),
    Step(None, (("ask_sub_agent",
                 {"agent_id": 1, "role_id": "full-stack-engineer",
                  "question": "How long until the API is deployed?",
                  "question_id": "ask_tl_001"}),), delay=2.0),
    Step(None, (("list_active_sub_agents", {}),), delay=3.0),
    Step("The sign-up page is designed (light and dark), the API is documented in api.md "
         "and will be deployed shortly.", delay=1.0),
]

UIO_STEPS = [
    Step("I am starting with the existing design style. Next I will create a new API for "
         "the form.", (("list_active_sub_agents", {}),), delay=1.0),
    Step("Reviewing the existing pages and components.", (("list_active_sub_agents", {}),),
         delay=2.0),
    Step("Understood, I will reuse the auth module. Asking the engineer for the fields.", (
        ("ask_other_agent", {"target_agent_id": 1, "message_id": "ask_uio_001",
                             "content": "Is the API fixed? I need the fields for the form."}),
    ), delay=1.0),
    Step("I finished the colour design: design.md, primary colour blue, form fields from "
         "api.md.", delay=2.5),
    Step("Dark-mode variant added to design.md.", delay=1.0),
]

FSE_STEPS = [
    Step(None, (("ask_master", {"question_id": "ask_fse_001",
                                "question": "How should I handle version conflicts? Which "
                                            "branch strategy does the project use?"}),),
         delay=1.5),
    Step("Thanks, using trunk-based development. Writing the API now.",
         (("list_active_sub_agents", {}),), delay=1.5),
    Step(None, (("answer_other_agent",
                 {"source_agent_id": 1, "message_id": "ask_uio_001",
                  "answer": "Yes, see api.md: POST /api/users with email, password, "
                            "display_name."}),), delay=1.0),
    Step("The API is done: POST /api/users, documented in api.md.", delay=1.0),
    Step("About ten minutes: the deployment pipeline is running.", delay=1.0),
]

DELIBERATE_ERRORS = {
    "ambiguous-agent-id": "deliberate: the script names agent_id 1 alone, which both "
                          "sub-agents have, to show the router refusing it; the Team Leader "
                          "sends it again with role_id",
}
"""Error codes of tool calls the script makes fail on purpose, with what a reader is told."""

SCRIPTS: dict[str, list[Step]] = {
    "UI Operator_1": UIO_STEPS,
    "Full-Stack Engineer_1": FSE_STEPS,
}


def make_session(store: Store, listener: Listener | None = None) -> Session:
    """The demo session on a virtual clock over ``store``."""
    clock = VirtualClock()

    def drivers(name: str, role_id: str) -> AgentDriver:
        return ScriptedAgent(SCRIPTS.get(name, []), clock, tag=role_id.split("-")[0])

    return Session(leader=ScriptedAgent(LEADER_STEPS, clock, tag="tl"), drivers=drivers,
                   store=store, clock=clock, session_id="teamwire-demo", listener=listener)


async def run_demo(store: Store, listener: Listener | None = None) -> Session:
    """Run the demo to the end and return its session."""
    session = make_session(store, listener)
    await session.start(REQUEST)
    await session.run_until_idle()
    return session
