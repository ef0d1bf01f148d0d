// An editor in miniature: drives `coder acp` with the official ACP
// TypeScript SDK's ClientSideConnection through the scenario of
// e2e/acp_test.go and writes everything it saw to a JSON transcript, which
// the Go test checks. It keeps an unsaved buffer for hello.py, so the test
// can tell the editor's buffer from the disk.
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

function startAgent() {
  const errFd = fs.openSync(env.ACP_STDERR, "a");
  const child = spawn(env.CODER_BIN, ["acp"], { cwd: ws, env, stdio: ["pipe", "pipe", errFd] });
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

try {
  const sessionId = await firstProcess();
  transcript.sessionId = sessionId;
  await secondProcess(sessionId);
} catch (e) {
  transcript.failure = String(e?.stack ?? e);
}
fs.writeFileSync(env.ACP_TRANSCRIPT, JSON.stringify(transcript, null, 1));
process.exit(transcript.failure ? 1 : 0);
