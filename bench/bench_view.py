"""``teamwire view`` at scale: a bundle of 10,000 messages, built, opened and scrolled.

Run: python bench/bench_view.py [--messages N] [--rounds R]

1. Build: lint + order + page for the bundle, against ``teamwire lint`` alone on the same
   bytes (the view runs the linter, so the ratio is what drawing adds).
2. Size: the page's bytes against the bundle's and the 10 MB budget.
3. Open: headless Chromium (Debian's, through chromedriver) loads the page until its
   script has drawn (``performance.mark("teamwire-drawn")``), against an empty page loaded
   the same way; the target is under 2 s.
4. Responsiveness: one draw after a scroll jump, and one relayout after a filter change, on
   the 10,000-message page against the same on the demo's 50-message page: a page that
   draws only the rows in sight scrolls as fast whatever the session's length.

The machine may be shared and noisy: each figure is the best of its rounds.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from teamwire.router.demo import run_demo
from teamwire.router.store import MemoryStore
from teamwire.validator import Linter
from teamwire.view.page import render_page
from teamwire.view.session import load_session

LEADER = "Team Leader"


def envelope(sender: str, label: str, tag: str, message_id: str, content: str,
             attributes: str = "") -> str:
    return f"来自 {sender} 的{label}\nid: {message_id}\n\n<{sender}>\n<{tag}{attributes}>\n" \
           f"{content}\n</{tag}>\n</{sender}>"


def call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"id": call_id, "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments, ensure_ascii=False)}}


def bundle_of(messages: int) -> dict[str, Any]:
    """A consistent session of about ``messages`` messages: sub-agents created with a Task,
    each reporting progress twice, guided by a Message, and completing."""
    leader: list[dict[str, Any]] = [{"role": "system", "content": "You are the Team Leader."},
                                    {"role": "user", "content": "Build the product."}]
    agents: dict[str, Any] = {LEADER: {"role_id": "team-leader", "messages": leader}}
    number = 0
    total = 2
    while total < messages:
        number += 1
        name = f"Engineer_{number}"
        task = f"Build part {number}: the module, its tests and its documentation."
        leader.append({"role": "assistant", "content": f"Engineer {number} takes part {number}.",
                       "tool_calls": [call(f"c{number}a", "create_sub_agent",
                                           {"agent_id": number, "role_id": "engineer",
                                            "task": task})]})
        leader.append({"role": "tool", "tool_call_id": f"c{number}a", "content": json.dumps(
            {"success": True, "agent_id": number, "role_id": "engineer", "display_name": name,
             "status": "running", "task_id": f"task_{number:03d}"})})
        sub: list[dict[str, Any]] = [
            {"role": "system", "content": "You are an Engineer."},
            {"role": "user", "content": envelope(LEADER, "任务发布", "Task", f"task_{number:03d}", task)}]
        for step in (1, 2):
            text = f"Part {number}, step {step}: reading the code and writing the change " * 2
            sub.append({"role": "assistant", "content": text,
                        "tool_calls": [call(f"s{number}_{step}", "read_file", {"path": "a.py"})]})
            sub.append({"role": "tool", "tool_call_id": f"s{number}_{step}",
                        "content": "def main():\n    return 42\n" * 20})
            leader.append({"role": "user", "content": envelope(
                name, "任务进度输出", "Output", f"out_e_{number:03d}{step}", text)})
        guidance = f"Part {number}: keep the public API as it is."
        leader.append({"role": "assistant", "content": None, "tool_calls": [call(
            f"c{number}m", "send_message_to_sub_agent",
            {"agent_id": number, "role_id": "engineer", "message": guidance})]})
        leader.append({"role": "tool", "tool_call_id": f"c{number}m", "content": json.dumps(
            {"success": True, "display_name": name, "message_id": f"msg_tl_{number:03d}",
             "delivery": "inline"})})
        sub.append({"role": "user", "content": envelope(LEADER, "消息", "Message",
                                                        f"msg_tl_{number:03d}", guidance)})
        done = f"Part {number} is done: module, tests and documentation."
        sub.append({"role": "assistant", "content": done})
        leader.append({"role": "user", "content": envelope(name, "任务完成汇报", "Output",
                                                           f"out_e_{number:03d}9", done)})
        agents[name] = {"role_id": "engineer", "agent_id": number, "messages": sub}
        total = sum(len(a["messages"]) for a in agents.values())
    leader.append({"role": "assistant", "content": "Every part is done."})
    return {"teamwire": "1.0", "session": f"bench-{messages}", "agents": agents}


def best(rounds: int, work: Any) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def browser() -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 f"--user-data-dir={tempfile.mkdtemp(prefix='bench-view-')}",
                 "--window-size=1440,900"):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def open_ms(driver: Any, url: str, drawn: bool) -> float:
    driver.get("about:blank")
    driver.get(url)
    if drawn:
        return float(driver.execute_script(
            "return performance.getEntriesByName('teamwire-drawn')[0].startTime"))
    return float(driver.execute_script(
        "return performance.getEntriesByType('navigation')[0].loadEventEnd"))


SCROLL = """
const scroller = document.getElementById('scroller'), view = window.teamwireView;
const jumps = arguments[0], height = scroller.scrollHeight;
const start = performance.now();
for (let k = 0; k < jumps; k++) {
  scroller.scrollTop = (height * ((k * 7919) % jumps)) / jumps;
  view.draw();
  document.body.offsetHeight;  // force layout, as a frame would
}
return (performance.now() - start) / jumps;
"""

FILTER = """
const chip = document.querySelector("#filters .chip[data-kind='other']");
const start = performance.now();
for (let k = 0; k < 10; k++) { chip.click(); document.body.offsetHeight; }
return (performance.now() - start) / 10;
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-view-"))
    big = json.dumps(bundle_of(args.messages), ensure_ascii=False).encode()
    demo = json.dumps(asyncio.run(run_demo(MemoryStore())).bundle(), ensure_ascii=False).encode()
    session = load_session(big, "big.json")
    print(f"bundle: {session.messages} messages, {len(session.lanes)} lanes, "
          f"{len(session.links)} links, {len(session.findings)} findings, "
          f"{len(big) / 1e6:.2f} MB")

    lint_s = best(args.rounds, lambda: Linter().lint_bytes(big, "big.json"))
    view_s = best(args.rounds, lambda: render_page(load_session(big, "big.json")))
    print(f"build:  view {view_s * 1000:.0f} ms, lint alone {lint_s * 1000:.0f} ms "
          f"(ratio {view_s / lint_s:.2f})")

    page = render_page(session)
    (work / "big.html").write_text(page, encoding="utf-8")
    (work / "demo.html").write_text(render_page(load_session(demo, "demo.json")),
                                    encoding="utf-8")
    (work / "empty.html").write_text("<!DOCTYPE html><title>empty</title>", encoding="utf-8")
    size = len(page.encode())
    print(f"size:   page {size / 1e6:.2f} MB ({size / len(big):.2f} x the bundle; "
          f"{size / 10e6:.0%} of the 10 MB budget)")

    driver = browser()
    try:
        empty = min(open_ms(driver, (work / "empty.html").as_uri(), False)
                    for _ in range(args.rounds))
        opened = min(open_ms(driver, (work / "big.html").as_uri(), True)
                     for _ in range(args.rounds))
        print(f"open:   {opened:.0f} ms until drawn, empty page {empty:.0f} ms "
              f"(ratio {opened / max(empty, 1):.1f}; target < 2000 ms: "
              f"{'met' if opened < 2000 else 'NOT met'})")
        big_scroll = min(driver.execute_script(SCROLL, 200) for _ in range(args.rounds))
        big_filter = min(driver.execute_script(FILTER) for _ in range(args.rounds))
        open_ms(driver, (work / "demo.html").as_uri(), True)
        small_scroll = min(driver.execute_script(SCROLL, 200) for _ in range(args.rounds))
        small_filter = min(driver.execute_script(FILTER) for _ in range(args.rounds))
        print(f"scroll: {big_scroll:.2f} ms per draw after a jump, demo page {small_scroll:.2f} "
              f"ms (ratio {big_scroll / max(small_scroll, 1e-3):.1f})")
        print(f"filter: {big_filter:.1f} ms per relayout, demo page {small_filter:.2f} ms "
              f"(ratio {big_filter / max(small_filter, 1e-3):.0f})")
    finally:
        driver.quit()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
