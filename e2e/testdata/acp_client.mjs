// An editor in miniature: drives `coder acp` with the official ACP
// TypeScript SDK's ClientSideConnection through the scenario of
// e2e/acp_test.go and writes everything it saw to a JSON transcript, which
// the Go test checks. It keeps an unsaved buffer for hello.py, so the test
// can tell the editor's buffer from the disk.
//
// A third process offers terminals: it runs what coder asks for as a
// child process (as an editor's terminal would) and records every
// terminal/* call.
//
// Environment: CODER_TEST_NPM_DIR (where the SDK is installed), CODER_BIN,
// ACP_WORKSPACE, ACP_TRANSCRIPT, ACP_STDERR; the rest is passed to coder.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";

const env = process.env;
const sdkDir = path.join(env.CODER_TEST_NPM_DIR, "node_modules", "@agentclientprotocol", "sdk");
const pkg = JSON.parse(fs.readFileSync(path.join(sdkDir, "package.json"), "utf8"));
const entry = pkg.exports?.["."]?.import ?? pkg.exports?.["."]?.default ?? pkg.main;
const acp = await import(pathToFileURL(path.join(sdkDir, entry)).href);

const ws = env.ACP_WORKSPACE;
const hello = path.join(ws, "hello.py");
// The editor's open buffers: path → text, unsaved until written.
const buffers = new Map([[hello, "hello buffer\n"]]);

const transcript = { sdkVersion: pkg.version, phases: [] };
let phase = null;
function begin(name) {
  phase = { name, updates: [], permissions: [], reads: [], writes: [] };
  transcript.phases.push(phase);
  return phase;
}
begin("connect");

// Answers for the permission requests to come, in order: an option kind
// ("allow_once", "allow_always", "reject_once"), "label:<name>" for an
// option by its name, or "cancel" (cancel the prompt instead of answering).
const answers = [];
let cancelSession = null;

function answer(req) {
  const want = answers.shift();
  phase.permissions.push({ request: req, answer: want ?? null });
  if (want === undefined) {
    throw new Error("unexpected permission request: " + JSON.stringify(req.toolCall));
  }
  if (want === "cancel") {
    return cancelSession().then(() => ({ outcome: { outcome: "cancelled" } }));
  }
  const opt = want.startsWith("label:")
    ? req.options.find((o) => o.name === want.slice("label:".length))
    : req.options.find((o) => o.kind === want);
  if (!opt) {
    throw new Error(`no option ${want} in ${JSON.stringify(req.options)}`);
  }
  return { outcome: { outcome: "selected", optionId: opt.optionId } };
}

// The editor's terminals: id → { child, output, exited, record }.
const terminals = new Map();
transcript.terminals = [];

function createTerminal(p) {
  const id = "term-" + (terminals.size + 1);
  const record = {
    id, command: p.command, args: p.args ?? [], cwd: p.cwd ?? null,
    env: (p.env ?? []).map((e) => e.name), outputByteLimit: p.outputByteLimit ?? null, calls: ["create"],
  };
  transcript.terminals.push(record);
  const env = { ...process.env };
  for (const e of p.env ?? []) env[e.name] = e.value;
  const child = spawn(p.command, p.args ?? [], { cwd: p.cwd ?? undefined, env, stdio: ["ignore", "pipe", "pipe"] });
  const t = { child, output: "", truncated: false, status: null, record };
  const keep = (chunk) => {
    t.output += chunk.toString("utf8");
    const limit = p.outputByteLimit;
    if (limit && Buffer.byteLength(t.output) > limit) {
      t.output = Buffer.from(t.output).subarray(-limit).toString("utf8");
      t.truncated = true;
    }
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  t.exited = new Promise((resolve) =>
    child.on("close", (code, signal) => {
      t.status = { exitCode: code, signal };
      record.exit = t.status;
      resolve(t.status);
    }),
  );
  terminals.set(id, t);
  return { terminalId: id };
}

function terminal(p, call) {
  const t = terminals.get(p.terminalId);
  if (!t) throw new Error("no terminal " + p.terminalId);
  t.record.calls.push(call);
  return t;
}

const terminalMethods = {
  async createTerminal(p) {
    return createTerminal(p);
  },
  async terminalOutput(p) {
    const t = terminal(p, "output");
    return { output: t.output, truncated: t.truncated, exitStatus: t.status };
  },
  async waitForTerminalExit(p) {
    const t = terminal(p, "wait");
    return await t.exited;
  },
  async killTerminal(p) {
    const t = terminal(p, "kill");
    if (t.status === null) t.child.kill("SIGKILL");
    await t.exited;
    return {};
  },
  async releaseTerminal(p) {
    const t = terminal(p, "release");
    if (t.status === null) t.child.kill("SIGKILL");
    return {};
  },
};

function startAgent(withTerminals = false, extraEnv = {}) {
  const errFd = fs.openSync(env.ACP_STDERR, "a");
  const child = spawn(env.CODER_BIN, ["acp"], { cwd: ws, env: { ...env, ...extraEnv }, stdio: ["pipe", "pipe", errFd] });
  child.on("error", (e) => {
    console.error("coder acp:", e);
    process.exit(2);
  });
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  const client = {
    async requestPermission(p) {
      return answer(p);
    },
    async sessionUpdate(p) {
      phase.updates.push(p);
    },
    async readTextFile(p) {
      phase.reads.push(p.path);
      return { content: buffers.get(p.path) ?? fs.readFileSync(p.path, "utf8") };
    },
    async writeTextFile(p) {
      phase.writes.push({ path: p.path, content: p.content });
      buffers.set(p.path, p.content);
      fs.writeFileSync(p.path, p.content);
      return {};
    },
    ...(withTerminals ? terminalMethods : {}),
  };
  const conn = new acp.ClientSideConnection(() => client, stream);
  return { child, conn };
}

async function waitFor(what, cond, ms = 30000) {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error("timed out waiting for " + what);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function prompt(conn, sessionId, name, text, expected = []) {
  const p = begin(name);
  answers.length = 0;
  answers.push(...expected);
  try {
    p.result = await conn.prompt({ sessionId, prompt: [{ type: "text", text }] });
  } catch (e) {
    p.error = String(e?.message ?? e);
  }
  if (answers.length > 0) throw new Error(`${name}: unused answers ${answers}`);
  return p;
}

const initParams = {
  protocolVersion: acp.PROTOCOL_VERSION,
  clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false },
  clientInfo: { name: "e2e-editor", version: "1.0.0" },
};

async function firstProcess() {
  const { child, conn } = startAgent();
  transcript.initialize = await conn.initialize(initParams);
  const created = await conn.newSession({ cwd: ws, mcpServers: [] });
  transcript.newSession = created;
  const sessionId = created.sessionId;
  cancelSession = () => conn.cancel({ sessionId });
  await waitFor("the command list", () => phase.updates.some((u) => u.update.sessionUpdate === "available_commands_update"));

  await prompt(conn, sessionId, "edit", "read and edit hello.py");
  await prompt(conn, sessionId, "bash", "run the counter", ["reject_once", "allow_once", "allow_always", "reject_once"]);
  await prompt(conn, sessionId, "cancel-permission", "append never", ["cancel"]);

  // Cancel while the model streams: once the first words are shown.
  const p = begin("cancel-stream");
  const pending = conn.prompt({ sessionId, prompt: [{ type: "text", text: "tell me a long story" }] });
  await waitFor("the slow stream's first chunk", () => p.updates.some((u) => u.update.sessionUpdate === "agent_message_chunk"));
  await conn.cancel({ sessionId });
  p.result = await pending;

  await prompt(conn, sessionId, "after-cancel", "go on");

  const mode = begin("set-mode");
  mode.result = await conn.setSessionMode({ sessionId, modeId: "plan" });
  await prompt(conn, sessionId, "plan", "plan a greeting", ["label:Start building, keep this conversation"]);

  child.stdin.end();
  await new Promise((r) => child.on("exit", r));
  transcript.firstExit = child.exitCode;
  return sessionId;
}

async function secondProcess(sessionId) {
  const { child, conn } = startAgent();
  begin("load");
  await conn.initialize(initParams);
  transcript.list = await conn.listSessions({ cwd: ws });
  transcript.load = await conn.loadSession({ sessionId, cwd: ws, mcpServers: [] });
  await prompt(conn, sessionId, "after-load", "what did you change?");
  child.stdin.end();
  await new Promise((r) => child.on("exit", r));
  transcript.secondExit = child.exitCode;
}

// An editor with terminals: bash runs in them, still in coder's sandbox
// (ACP_TERMINAL_ENV: extra variables for this coder, such as a forced
// sandbox level).
async function thirdProcess() {
  const { child, conn } = startAgent(true, JSON.parse(env.ACP_TERMINAL_ENV ?? "{}"));
  begin("terminal-connect");
  await conn.initialize({ ...initParams, clientCapabilities: { ...initParams.clientCapabilities, terminal: true } });
  const { sessionId } = await conn.newSession({ cwd: ws, mcpServers: [] });
  cancelSession = () => conn.cancel({ sessionId });
  // The refused write is offered a re-run outside the sandbox: declined.
  await prompt(conn, sessionId, "terminal", "run the checks in a terminal", ["allow_once", "allow_once", "reject_once"]);

  // Cancel once the long command shows in its terminal.
  const p = begin("terminal-cancel");
  answers.length = 0;
  answers.push("allow_once");
  const pending = conn.prompt({ sessionId, prompt: [{ type: "text", text: "sleep" }] });
  const shown = () =>
    p.updates.some((u) => (u.update.content ?? []).some((c) => c.type === "terminal"));
  await waitFor("the sleeper's terminal", shown);
  await conn.cancel({ sessionId });
  p.result = await pending;

  child.stdin.end();
  await new Promise((r) => child.on("exit", r));
  transcript.thirdExit = child.exitCode;
}

try {
  const sessionId = await firstProcess();
  transcript.sessionId = sessionId;
  await secondProcess(sessionId);
  await thirdProcess();
} catch (e) {
  transcript.failure = String(e?.stack ?? e);
}
fs.writeFileSync(env.ACP_TRANSCRIPT, JSON.stringify(transcript, null, 1));
process.exit(transcript.failure ? 1 : 0);
