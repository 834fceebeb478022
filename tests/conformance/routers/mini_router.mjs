// A small router of the protocol in JavaScript (Node 18 or later), written from the
// specification alone: the certification tests run it to show that a router in another
// language can be certified, and, with MINI_ROUTER_FAULT set, that its mistakes are found:
//   drop-final     a message that reaches a sub-agent during its final reply is lost
//   reverse-batch  messages waiting for an agent are appended newest first
//   no-timeout     an ask that is never answered waits for ever
//   any-message    any message that reaches a waiting agent ends its wait as if it answered
//   keep-repeats   arguments that name a member twice are read, the last value kept
//   keep-call-ids  tool calls keep the ids the model gave, empty, missing or repeated
//   utf16-call-ids a new call id keeps the first 64 UTF-16 units of the given one, not code points
//   no-summary     list_active_sub_agents gives every summary empty
//   utf16-summary  a summary keeps the first 120 UTF-16 units of its line, not code points
//   take-any-knob  an unanswered_asks other than wait and fail is read as wait
//   list-terminated list_active_sub_agents lists terminated sub-agents too
//   early-progress a turn a progress report starts makes its first call before the report's
//                  reply has run its tool calls
//   per-agent-ids  each agent counts its own ids: two instances of one role give one out_ id twice
//   msg-as-ask     a sub-agent's ask_other_agent is an Ask whatever its id, msg_ too
//   answer-at-end  the Team Leader's ask is answered by the sub-agent's final output, not
//                  by text beside its tool calls before it
//   late-running   an asker whose ask was answered stays waiting until it goes on, after the
//                  answering reply's tool calls: they find it waiting (a false wait-cycle)
//   object-ids     the ids agents chose are the keys of a plain object, looked up as ids[id]:
//                  constructor, __proto__ and toString are found there before any ask used them
// It speaks the certification contract (OPENAI_BASE_URL, OPENAI_API_KEY, TEAMWIRE_REQUEST,
// TEAMWIRE_ROLES, TEAMWIRE_ASK_TIMEOUT, TEAMWIRE_ROUND_LIMIT), refuses (exit 2) a knob out of
// range, and exits 0 once every agent is idle.

import { readFileSync } from "node:fs";

// region: contract
const FAULT = process.env.MINI_ROUTER_FAULT || "";
const URL_ = process.env.OPENAI_BASE_URL.replace(/\/$/, "") + "/chat/completions";
const KEY = process.env.OPENAI_API_KEY || "";
// A setting from the environment; exit 2 on one the router must refuse.
function knob(name, whole, fallback) {
  const text = process.env[name];
  if (!text) return fallback;
  const value = Number(text);
  if (!(value > 0 && Number.isFinite(value)) || (whole && !/^[0-9]+$/.test(text))) {
    process.stderr.write(`error: ${name} must be a positive ${whole ? "integer" : "number"}, not ${JSON.stringify(text)}\n`);
    process.exit(2);
  }
  return value;
}
const ASK_TIMEOUT_SETTING = knob("TEAMWIRE_ASK_TIMEOUT", false, 300);
const ASK_TIMEOUT = FAULT === "no-timeout" ? null : ASK_TIMEOUT_SETTING;
const ROUND_LIMIT = knob("TEAMWIRE_ROUND_LIMIT", true, 8);
const UNANSWERED = process.env.TEAMWIRE_UNANSWERED_ASKS || "wait";
if (UNANSWERED !== "wait" && UNANSWERED !== "fail" && FAULT !== "take-any-knob") {
  process.stderr.write(`error: TEAMWIRE_UNANSWERED_ASKS must be wait or fail, not ${JSON.stringify(UNANSWERED)}\n`);
  process.exit(2);
}
const FAIL_UNANSWERED = UNANSWERED === "fail";
const LEADER = "Team Leader";
// The role catalog the harness names (role id -> name, description), or the preset roles.
const CATALOG = process.env.TEAMWIRE_ROLES ? JSON.parse(readFileSync(process.env.TEAMWIRE_ROLES, "utf8")) : [
  { role_id: "ui-operator", name: "UI Operator", description: "Designs and builds user interfaces." },
  { role_id: "full-stack-engineer", name: "Full-Stack Engineer", description: "Builds APIs, services and their front-end wiring." }];
const ROLES = new Map(CATALOG.map((role) => [role.role_id, role.name]));
const DESCRIPTIONS = new Map(CATALOG.map((role) => [role.role_id, role.description]));
// endregion: contract
const ASK_LINE = /^来自 (.+) 的(?:提问|消息)\nid: (\S+)\n/;
const CHOSEN_ID = /^[^\s<>"]+$/; // an id an agent may choose (TW-ID-001)
const abbreviation = (name, roleId) => (name.match(/[A-Z]/g) || []).join("").toLowerCase()
  || roleId.split(/[-_]/).filter(Boolean).map((part) => part[0]).join("") || "a";
const LEADER_TOOLS = ["create_sub_agent", "terminate_sub_agent", "send_message_to_sub_agent",
  "ask_sub_agent", "answer_sub_agent_question", "list_active_sub_agents", "get_sub_agent_status",
  "create_custom_agent", "list_agents"];
const SUB_TOOLS = ["ask_master", "ask_other_agent", "answer_other_agent", "list_active_sub_agents"];

// region: envelope
const envelope = (sender, label, id, tag, content, attributes = "") =>
  `来自 ${sender} 的${label}\nid: ${id}\n\n<${sender}>\n<${tag}${attributes}>\n${content}\n</${tag}>\n</${sender}>`;
const error = (code, message) => JSON.stringify({ success: false, error: { code, message } });
const tools = (names) => names.map((name) => ({ type: "function", function: { name, parameters: { type: "object" } } }));
// endregion: envelope

// Refuse arguments that name a member twice at any depth (names compared once decoded), as
// JSON.parse would silently keep the last: a small scanner over the JSON text finds them.
function repeatedMember(text) {
  let at = 0;
  const space = () => { while (at < text.length && " \t\r\n".includes(text[at])) at += 1; };
  const string = () => {
    const start = at;
    at += 1;
    while (text[at] !== '"') at += text[at] === "\\" ? 2 : 1;
    at += 1;
    return JSON.parse(text.slice(start, at));
  };
  const value = () => {
    space();
    if (text[at] === "{") {
      at += 1;
      const names = new Set();
      space();
      if (text[at] === "}") { at += 1; return false; }
      for (;;) {
        space();
        const name = string();
        if (names.has(name)) return true;
        names.add(name);
        space();
        at += 1; // the colon
        if (value()) return true;
        space();
        if (text[at++] === "}") return false;
      }
    }
    if (text[at] === "[") {
      at += 1;
      space();
      if (text[at] === "]") { at += 1; return false; }
      for (;;) {
        if (value()) return true;
        space();
        if (text[at++] === "]") return false;
      }
    }
    if (text[at] === '"') { string(); return false; }
    while (at < text.length && !",]} \t\r\n".includes(text[at])) at += 1;
    return false;
  };
  return value();
}

// Integers beyond 2^53-1, which not every JSON reader holds exactly, anywhere in a value.
const beyondSafe = (value) => (value !== null && typeof value === "object")
  ? Object.values(value).some(beyondSafe)
  : typeof value === "number" && Number.isInteger(value) && !Number.isSafeInteger(value);

// The arguments of a call, or the reason to refuse them with invalid-arguments.
function readArguments(text) {
  let args;
  try {
    args = JSON.parse(text || "{}");
  } catch (problem) {
    return `the arguments are not JSON: ${problem.message}`;
  }
  if (args === null || typeof args !== "object" || Array.isArray(args)) return "the arguments are not a JSON object";
  if (FAULT !== "keep-repeats" && repeatedMember(text)) return "the arguments name a member twice";
  if (beyondSafe(args)) return "an integer lies beyond 2^53-1";
  return args;
}

// The calls with the ids a router gives them: an empty, missing or repeated id becomes
// base_n, base being the first 64 characters of the id (or "call") and n >= 2 the smallest
// number that makes it new in the conversation.
function ownIds(calls, history) {
  const used = new Set(history.flatMap((m) => (m.tool_calls || []).map((c) => c.id)));
  return calls.map((call) => {
    let id = call.id;
    if (FAULT !== "keep-call-ids" && (!id || used.has(id))) {
      // Code points, as TW-DUR-009 counts them, not the UTF-16 units of slice.
      const base = (FAULT === "utf16-call-ids" ? (id || "").slice(0, 64)
        : Array.from(id || "").slice(0, 64).join("")) || "call";
      let n = 2;
      while (used.has(`${base}_${n}`)) n += 1;
      id = `${base}_${n}`;
    }
    used.add(id);
    return { ...call, id };
  });
}

const agents = new Map();
let currentArguments = "{}";
const integerWrittenWithFraction = (key) =>
  new RegExp(`"${key}"\\s*:\\s*-?\\d+(\\.\\d+|[eE])`).test(currentArguments);
// region: ids
const counters = { tasks: 0 };
// One counter per (prefix, abbreviation) for the whole session (TW-ID-007): two instances of
// one role share an abbreviation, so a counter kept per agent would give both out_xx_001.
const allocated = new Map();
const chosen = new Set(); // ids agents chose for their asks, which no counter may give
const chosenObject = {}; // object-ids: the same ids as a plain object's keys
const isChosen = (id) => (FAULT === "object-ids" ? Boolean(chosenObject[id]) : chosen.has(id));
const given = new Set(); // ids the router allocated, which no agent may choose
function nextId(prefix, abbreviation, name) {
  const key = `${prefix}_${abbreviation}`;
  const counter = FAULT === "per-agent-ids" ? `${key}:${name}` : key;
  for (;;) {
    allocated.set(counter, (allocated.get(counter) || 0) + 1);
    const id = `${key}_${String(allocated.get(counter)).padStart(3, "0")}`;
    if (!isChosen(id)) {
      given.add(id);
      return id;
    }
  }
}
// endregion: ids
const rounds = new Map();
let busy = 0;

function makeAgent(name, roleId, agentId, abbreviation) {
  const agent = { name, roleId, agentId, abbreviation, messages: [], pending: [], state: "idle",
    received: new Map(), askedId: null, resolveAsk: null, waitingOn: null, timeout: 600,
    generation: 0, leaderAsks: [],
    // Messages of ask_other_agent (msg_ ids) not yet delivered, and those delivered, which
    // its next natural output answers
    messageAsks: new Map(), heard: [] };
  agents.set(name, agent);
  return agent;
}

// region: model-call
// A failed model call (an error status, no answer, no assistant message, content that is
// not text) is null.
async function complete(agent) {
  try {
    const response = await fetch(URL_, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${KEY}` },
      body: JSON.stringify({ model: "any", messages: agent.messages,
        tools: tools(agent.name === LEADER ? LEADER_TOOLS : SUB_TOOLS) }),
    });
    if (!response.ok) return null;
    const message = (await response.json()).choices[0].message;
    if (!message || typeof message !== "object") return null;
    // content is a string or null (TW-ROUTE-031): an array of parts is a failed call
    return message.content == null || typeof message.content === "string" ? message : null;
  } catch {
    return null;
  }
}
// endregion: model-call

// One try, then the turn ends (TW-ROUTE-031): a sub-agent's with a run result of state
// error (TW-ROUTE-019), the Team Leader's with no message (TW-ROUTE-025).
function giveUp(agent) {
  if (agent.name === LEADER) return endTurn(agent, "");
  endTurn(agent, `<result agent="${agent.name}" state="error">\n<error>\nthe model call failed\n</error>\n</result>`);
}

// region: drain
function drain(agent) {
  const batch = FAULT === "reverse-batch" ? [...agent.pending].reverse() : agent.pending;
  for (const text of batch) {
    agent.messages.push({ role: "user", content: text });
    const found = ASK_LINE.exec(text);
    if (found) {
      agent.received.set(found[2], found[1]); // an Ask is received once it is in the conversation
      const asker = agent.messageAsks.get(found[2]);
      if (asker) {
        agent.messageAsks.delete(found[2]);
        agent.heard.push([asker, found[2]]);
      }
    }
  }
  agent.pending = [];
}
// endregion: drain

// How many agents are running the tool calls of a reply (not waiting in an ask): a turn those
// calls start makes its first model call only once they are done, so that it holds every
// message the reply sent it (TW-ROUTE-033).
let executing = 0;
let quietWaiters = [];
function executingBy(delta) {
  executing += delta;
  if (executing === 0) {
    const waiters = quietWaiters;
    quietWaiters = [];
    for (const resolve of waiters) resolve();
  }
}

// White space as chapter 00 of the specification lists it; trim() knows another set.
const WHITE = /^[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*$/;
function blank(text) {
  return WHITE.test(text || "");
}

// The latest text the agent said that is not blank, up to its first LF or CR, at most 120
// code points (TW-TOOL-015).
function summaryOf(agent) {
  const said = agent.messages.filter((m) => m.role === "assistant" && !blank(m.content)).pop();
  if (!said) return "";
  const line = said.content.split(/[\n\r]/)[0];
  return FAULT === "utf16-summary" ? line.slice(0, 120) : Array.from(line).slice(0, 120).join("");
}

// region: start-turn
function startTurn(agent) {
  agent.state = "running";
  agent.generation += 1;
  const generation = agent.generation;
  busy += 1;
  let timer = null;
  if (agent.name !== LEADER) {
    // The turn timeout: the turn ends now with a run result; its late reply is dropped.
    timer = setTimeout(() => {
      if (agent.generation !== generation || !["running", "waiting"].includes(agent.state)) return;
      agent.generation += 1;
      // its pending ask fails with timeout (TW-ROUTE-018); the calls after it get turn-ended
      if (agent.resolveAsk) agent.resolveAsk(error("timeout", "the turn ended by its timeout during the ask"));
      endTurn(agent, `<result agent="${agent.name}" state="timeout">\n<error>\nstopped after ${agent.timeout} s\n</error>\n</result>`);
    }, agent.timeout * 1000);
  }
  // Counted until the turn ends, or until the agent is terminated: its model call is then
  // abandoned, not waited for (TW-ROUTE-020).
  let counted = true;
  const uncount = () => {
    if (!counted) return;
    counted = false;
    busy -= 1;
    if (busy === 0) process.exit(0);
  };
  agent.uncount = uncount;
  turn(agent, generation).finally(() => {
    if (timer) clearTimeout(timer);
    uncount();
  });
}
// endregion: start-turn

// region: turn
async function turn(agent, generation) {
  if (executing > 0) await new Promise((resolve) => quietWaiters.push(resolve));
  // terminated by the rest of the reply that started the turn: it makes no model call
  if (agent.generation !== generation || agent.state === "terminated") return;
  for (;;) {
    drain(agent);
    const reply = await complete(agent);
    if (reply === null) {
      if (agent.generation === generation && agent.state !== "terminated") giveUp(agent);
      return;
    }
    if (agent.generation !== generation || agent.state === "terminated") return;
    const calls = ownIds(reply.tool_calls || [], agent.messages);
    agent.messages.push({ role: "assistant", content: reply.content, ...(calls.length ? { tool_calls: calls } : {}) });
    // Counted from before the answer and the progress report the text gives: an asker it
    // lets go on, or a turn it starts, waits for the calls too (TW-ROUTE-033).
    if (calls.length && FAULT !== "early-progress") executingBy(1);
    const answered = answerHeard(agent, reply.content || "");
    if (!calls.length) return endTurn(agent, reply.content || "", answered);
    if (agent.name !== LEADER && !blank(reply.content) && !answered) {
      // text beside tool calls is progress, reported before they run
      const id = nextId("out", agent.abbreviation, agent.name);
      deliver(agents.get(LEADER), envelope(agent.name, "任务进度输出", id, "Output", reply.content));
    }
    if (FAULT === "early-progress") executingBy(1);
    try {
      for (const call of calls) {
        currentArguments = call.function.arguments || "{}";
        const args = readArguments(currentArguments);
        // a call the turn timeout came before does nothing
        const result = agent.generation !== generation ? error("turn-ended", "the turn ended before this call ran")
          : typeof args === "string" ? error("invalid-arguments", args)
          : await execute(agent, call.function.name, args);
        if (agent.state === "terminated") return; // its conversation ends where it was terminated
        agent.messages.push({ role: "tool", tool_call_id: call.id, content: result });
      }
    } finally {
      executingBy(-1);
    }
    if (agent.generation !== generation) return; // ended by its timeout: no further model call
  }
}
// endregion: turn

// Natural output answers the Messages of ask_other_agent the agent has heard whose askers
// still wait on them (the answer rule), each with an Answer of its own; whether it answered
// any, so that it is no report too (TW-TYPE-018).
function answerHeard(agent, text) {
  if (blank(text) || !agent.heard.length) return false;
  const heard = agent.heard;
  agent.heard = [];
  let answered = false;
  for (const [asker, questionId] of heard) {
    if (asker.resolveAsk && asker.waitingOn === agent.name && asker.askedId === questionId) {
      const id = nextId("ans", agent.abbreviation, agent.name);
      asker.resolveAsk(envelope(agent.name, "回答", id, "Answer", text, ` question_id="${questionId}"`));
      answered = true;
    }
  }
  return answered;
}

function endTurn(agent, text, answered = false) {
  if (agent.state === "terminated") return;
  agent.state = agent.name === LEADER ? "idle" : "completed";
  if (FAULT === "drop-final" && agent.name !== LEADER) agent.pending = [];
  const leader = agents.get(LEADER);
  if (agent.name !== LEADER && agent.leaderAsks.length && !blank(text) && leader.resolveAsk) {
    // The natural output answers the Team Leader's ask (the answer rule).
    const questionId = agent.leaderAsks.shift();
    const id = nextId("ans", agent.abbreviation, agent.name);
    leader.resolveAsk(envelope(agent.name, "回答", id, "Answer", text, ` question_id="${questionId}"`));
  } else if (agent.name !== LEADER && !answered) {
    const id = nextId("out", agent.abbreviation, agent.name);
    deliver(leader, envelope(agent.name, "任务完成汇报", id, "Output", text));
  }
  for (const other of agents.values()) {
    // with unanswered_asks fail, an ask this turn received and left unanswered ends with it
    // (TW-ROUTE-030); by default it waits on
    if (FAIL_UNANSWERED && other.waitingOn === agent.name && other.resolveAsk && !agent.pending.includes(other.askedText)) {
      other.resolveAsk(error("unanswered", `${agent.name} did not answer`));
    }
  }
  if (agent.pending.length) startTurn(agent);
}

// region: deliver
function deliver(agent, text) {
  if (FAULT === "any-message" && agent.state === "waiting" && agent.resolveAsk) {
    agent.resolveAsk(text);
    return "queued";
  }
  agent.pending.push(text);
  if (agent.state === "running") return "inline";
  if (agent.state === "waiting") return "queued";
  startTurn(agent);
  return "new_turn";
}
// endregion: deliver

const TEXTS = ["task", "message", "question", "content", "answer", "description", "prompt"];

// How deep objects and arrays nest, the outermost counted as level 1.
function depth(value) {
  if (value === null || typeof value !== "object") return 0;
  return 1 + Math.max(0, ...Object.values(value).map(depth));
}

function resolve(caller, agentId, roleId) {
  if (caller.name !== LEADER && roleId === caller.roleId && agentId === caller.agentId) {
    return error("invalid-arguments", "a call may not target its caller");
  }
  const found = [...agents.values()].filter((a) => a.name !== LEADER && a.name !== caller.name
    && a.agentId === agentId && (roleId === undefined || roleId === a.roleId));
  if (!found.length) return error("unknown-agent", `no sub-agent ${agentId}`);
  if (found.length > 1) {
    return JSON.stringify({ success: false, error: { code: "ambiguous-agent-id", message: "give role_id",
      candidates: found.map((a) => ({ agent_id: a.agentId, role_id: a.roleId, display_name: a.name })) } });
  }
  return found[0];
}

// region: ask
function ask(agent, target, questionId, text) {
  // the order of TW-TOOL-037: the target, then the tool's own conditions
  if (target.state === "terminated") return Promise.resolve(error("agent-terminated", `${target.name} is terminated`));
  for (let link = target, seen = new Set([agent.name]); link.waitingOn !== null; link = agents.get(link.waitingOn)) {
    if (seen.has(link.waitingOn)) return Promise.resolve(error("wait-cycle", "the ask would wait in a cycle"));
    seen.add(link.name);
  }
  if (isChosen(questionId) || given.has(questionId)) {
    return Promise.resolve(error("duplicate-id", `${questionId} is used in this session`));
  }
  if (agent.name !== LEADER && target.name !== LEADER) {
    const pair = `${agent.name}->${target.name}`;
    if ((rounds.get(pair) || 0) >= ROUND_LIMIT) return Promise.resolve(error("round-limit", "too many asks between these two"));
    rounds.set(pair, (rounds.get(pair) || 0) + 1);
  }
  // the first natural output after delivery answers the Team Leader's ask (TW-ROUTE-014)
  if (agent.name === LEADER && FAULT === "answer-at-end") target.leaderAsks.push(questionId);
  else if (agent.name === LEADER) target.messageAsks.set(questionId, agent);
  chosen.add(questionId); // the counters skip it (TW-ID-008)
  chosenObject[questionId] = true;
  agent.state = "waiting";
  agent.waitingOn = target.name;
  agent.askedId = questionId;
  executingBy(-1); // waiting in the ask: the turns this reply started may begin
  return new Promise((done) => {
    let timer = null;
    agent.resolveAsk = (answer) => {
      if (timer) clearTimeout(timer);
      agent.resolveAsk = null;
      const running = () => {
        agent.waitingOn = null;
        if (agent.state === "waiting") agent.state = "running";
      };
      // running again at once, as the decision table says (TW-ROUTE-007)
      if (FAULT !== "late-running") running();
      const goOn = () => {
        running();
        executingBy(1);
        done(answer);
      };
      // an answer given by text beside tool calls: the asker goes on once they have run
      if (executing > 0) quietWaiters.push(goOn);
      else goOn();
    };
    if (ASK_TIMEOUT !== null) {
      timer = setTimeout(() => agent.resolveAsk(error("timeout", `${target.name} did not answer in time`)),
        ASK_TIMEOUT * 1000);
    }
    // a sub-agent's ask of a peer whose id starts with msg_ is a Message (TW-TYPE-010),
    // which the peer's next natural output answers
    if (agent.name !== LEADER && target.name !== LEADER && questionId.startsWith("msg_")
      && FAULT !== "msg-as-ask") {
      target.messageAsks.set(questionId, agent);
      agent.askedText = envelope(agent.name, "消息", questionId, "Message", text);
    } else {
      agent.askedText = envelope(agent.name, "提问", questionId, "Ask", text);
    }
    deliver(target, agent.askedText);
  });
}
// endregion: ask

async function execute(agent, name, args) {
  if (!(agent.name === LEADER ? LEADER_TOOLS : SUB_TOOLS).includes(name)) {
    return error("forbidden-tool", `${name} is not a tool of ${agent.name}`);
  }
  for (const key of ["agent_id", "target_agent_id", "source_agent_id", "timeout_seconds"]) {
    // JSON.parse reads 1.0 as 1: the text decides whether it was written as an integer.
    if (key in args && (!Number.isInteger(args[key]) || args[key] < 1 || integerWrittenWithFraction(key))) {
      return error("invalid-arguments", `${key} must be an integer of at least 1`);
    }
  }
  for (const key of TEXTS) {
    if (typeof args[key] === "string" && blank(args[key])) {
      return error("invalid-arguments", `${key} holds nothing but white space`);
    }
  }
  if (depth(args) > 64) return error("invalid-arguments", "the arguments nest more than 64 levels deep");
  const idName = { ask_master: "question_id", ask_sub_agent: "question_id", ask_other_agent: "message_id" }[name];
  if (idName && (typeof args[idName] !== "string" || !CHOSEN_ID.test(args[idName]))) {
    return error("invalid-arguments", `${idName} is no id (TW-ID-001)`);
  }
  if (name === "ask_master") return ask(agent, agents.get(LEADER), args.question_id, args.question);
  if (name === "ask_sub_agent") {
    const target = resolve(agent, args.agent_id, args.role_id);
    if (typeof target === "string") return target;
    return ask(agent, target, args.question_id, args.question);
  }
  if (name === "create_custom_agent") {
    if (!/^[a-z0-9][a-z0-9_-]{0,63}$/.test(args.role_id) || args.role_id === "team-leader") {
      return error("invalid-name", `${args.role_id} is no role id`);
    }
    if (ROLES.has(args.role_id) || [...ROLES.values()].includes(args.name)) {
      return error("role-exists", `${args.role_id} exists`);
    }
    ROLES.set(args.role_id, args.name);
    DESCRIPTIONS.set(args.role_id, args.description || "");
    return JSON.stringify({ success: true, role_id: args.role_id, name: args.name });
  }
  if (name === "ask_other_agent") {
    const target = resolve(agent, args.target_agent_id, args.role_id);
    if (typeof target === "string") return target;
    return ask(agent, target, args.message_id, args.content);
  }
  // region: answer
  if (name === "answer_other_agent" || name === "answer_sub_agent_question") {
    const asker = name === "answer_other_agent"
      ? resolve(agent, args.source_agent_id, args.role_id) : resolve(agent, args.agent_id, args.role_id);
    if (typeof asker === "string") return asker;
    // the target comes before the tool's own conditions (TW-TOOL-037)
    if (asker.state === "terminated") return error("agent-terminated", `${asker.name} is terminated`);
    const questionId = name === "answer_other_agent" ? args.message_id : args.question_id;
    if (agent.received.get(questionId) !== asker.name) {
      return error("unknown-question", `no question ${questionId} from ${asker.name}`);
    }
    if (!asker.resolveAsk || asker.waitingOn !== agent.name || asker.askedId !== questionId) {
      return error("not-waiting", `${asker.name} no longer waits on ${questionId}`);
    }
    const id = nextId("ans", agent.abbreviation, agent.name);
    asker.resolveAsk(envelope(agent.name, "回答", id, "Answer", args.answer, ` question_id="${questionId}"`));
    return JSON.stringify(name === "answer_other_agent"
      ? { success: true, display_name: asker.name, message_id: questionId }
      : { success: true, display_name: asker.name, question_id: questionId });
  }
  // endregion: answer
  if (name === "terminate_sub_agent") {
    const target = resolve(agent, args.agent_id, args.role_id);
    if (typeof target === "string") return target;
    if (target.state === "terminated") return error("agent-terminated", `${target.name} is terminated`);
    target.state = "terminated";
    target.pending = [];
    if (target.uncount) target.uncount(); // its model call in progress is abandoned
    if (target.resolveAsk) target.resolveAsk(""); // an ask it waits on ends with it
    for (const other of agents.values()) {
      if (other.waitingOn === target.name && other.resolveAsk) {
        other.resolveAsk(error("agent-terminated", `${target.name} was terminated`));
      }
    }
    return JSON.stringify({ success: true, agent_id: target.agentId, role_id: target.roleId,
      display_name: target.name, status: "terminated" });
  }
  if (name === "create_sub_agent") {
    if (!ROLES.has(args.role_id)) return error("unknown-role", `no role ${args.role_id}`);
    const roleName = ROLES.get(args.role_id);
    if ([...agents.values()].some((a) => a.roleId === args.role_id && a.agentId === args.agent_id)) {
      return error("duplicate-id", `${roleName}_${args.agent_id} exists`);
    }
    const sub = makeAgent(`${roleName}_${args.agent_id}`, args.role_id, args.agent_id,
      abbreviation(roleName, args.role_id));
    sub.timeout = args.timeout_seconds || 600;
    counters.tasks += 1;
    const taskId = `task_${String(counters.tasks).padStart(3, "0")}`;
    given.add(taskId);
    sub.messages.push({ role: "system", content: `You are ${sub.name}.` });
    deliver(sub, envelope(LEADER, "任务发布", taskId, "Task", args.task));
    return JSON.stringify({ success: true, agent_id: sub.agentId, role_id: sub.roleId,
      display_name: sub.name, status: "running", task_id: taskId });
  }
  if (name === "get_sub_agent_status") {
    const target = resolve(agent, args.agent_id, args.role_id);
    if (typeof target === "string") return target;
    return JSON.stringify({ success: true, agent_id: target.agentId, role_id: target.roleId,
      display_name: target.name, status: target.state });
  }
  if (name === "send_message_to_sub_agent") {
    const target = resolve(agent, args.agent_id, args.role_id);
    if (typeof target === "string") return target;
    if (target.state === "terminated") return error("agent-terminated", `${target.name} is terminated`);
    const id = nextId("msg", agent.abbreviation, agent.name);
    const how = deliver(target, envelope(LEADER, "消息", id, "Message", args.message));
    return JSON.stringify({ success: true, display_name: target.name, message_id: id, delivery: how });
  }
  if (name === "list_agents") {
    return JSON.stringify({ success: true, roles: [...ROLES].map(([roleId, roleName]) =>
      ({ role_id: roleId, name: roleName, description: DESCRIPTIONS.get(roleId) || "" })) });
  }
  if (name === "list_active_sub_agents") {
    return JSON.stringify({ success: true, agents: [...agents.values()]
      .filter((a) => a.name !== LEADER && (FAULT === "list-terminated" || a.state !== "terminated"))
      .map((a) => ({ agent_id: a.agentId, role_id: a.roleId, display_name: a.name, status: a.state,
        summary: FAULT === "no-summary" ? "" : summaryOf(a) })) });
  }
  return error("forbidden-tool", `${name} is not supported`);
}

const leader = makeAgent(LEADER, "team-leader", 0, "tl");
leader.messages.push({ role: "system", content: "You are the Team Leader." });
deliver(leader, process.env.TEAMWIRE_REQUEST);
