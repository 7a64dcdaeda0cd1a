// Conformance of `hub acp` as seen by the official ACP TypeScript SDK client,
// with the replay agent playing scripted turns. Every stdout message is
// validated against the ACP JSON Schema (harness.mjs).
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { EventEmitter } from "node:events";
import { PassThrough } from "node:stream";
import { acp, Hub, startHub } from "./harness.mjs";

const ev = (event) => ({ event });
const text = (t) => ev({ type: "text", text: t });

/**
 * runHub starts hub with steps, connects an SDK client whose permission
 * handler answers from permAnswers (option kinds, in order), runs body, then
 * closes stdin and asserts a clean exit and schema-valid traffic.
 */
async function runHub(t, steps, body, { permAnswers = [], caps = {}, home, cwd: givenCwd } = {}) {
  const hub = startHub(steps, { home });
  const updates = []; // {sessionId, update}
  const permissions = [];
  const cwd = givenCwd ?? fs.mkdtempSync(path.join(os.tmpdir(), "hub-node-cwd-"));
  const app = acp
    .client({ name: "hub-node-e2e" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      updates.push(params);
    })
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      permissions.push(params);
      const kind = permAnswers.shift();
      if (!kind || kind === "cancelled") return { outcome: { outcome: "cancelled" } };
      const opt = params.options.find((o) => o.kind === kind);
      assert.ok(opt, `permission options ${JSON.stringify(params.options)} lack kind ${kind}`);
      return { outcome: { outcome: "selected", optionId: opt.optionId } };
    });
  try {
    await app.connectWith(hub.stream, async (ctx) => {
      const init = await ctx.request(acp.methods.agent.initialize, {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: caps,
        clientInfo: { name: "hub-node-e2e", version: "0.0.0" },
      });
      assert.equal(init.protocolVersion, 1);
      await body({ ctx, hub, updates, permissions, cwd });
    });
    const exit = await hub.close();
    assert.ok(exit, "hub did not exit within 10s of stdin closing");
    assert.equal(exit.code, 0, `hub exit ${JSON.stringify(exit)}`);
    assert.deepEqual(hub.problems, [], "schema/framing problems in hub output");
  } catch (err) {
    if (hub.child.exitCode === null) await hub.close(2000);
    err.message += `\n--- hub stderr (tail) ---\n${hub.stderrTail()}`;
    throw err;
  } finally {
    if (!givenCwd) fs.rmSync(cwd, { recursive: true, force: true });
  }
}

async function newSession(ctx, cwd) {
  const res = await ctx.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  assert.equal(typeof res.sessionId, "string");
  assert.ok(res.sessionId.length > 0);
  return res.sessionId;
}

function prompt(ctx, sessionId, t) {
  return ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: t }] });
}

const kinds = (ups) => ups.map((u) => u.update.sessionUpdate);
const turnText = (ups) =>
  ups
    .filter((u) => u.update.sessionUpdate === "agent_message_chunk" && u.update.content.type === "text")
    .map((u) => u.update.content.text)
    .join("");

/**
 * Asserts on raw stdout that no session/update of sid written while the nth
 * prompt was the latest one sent follows that prompt's response (C26).
 */
function assertUpdatesBeforeResponse(hub, sid, nth = 0) {
  const idx = hub.responseIndex("session/prompt", nth);
  assert.ok(idx >= 0, "no session/prompt response on stdout");
  const late = hub
    .messages()
    .filter((m, i) => i > idx && hub.lineTurn[i] === nth + 1)
    .filter((m) => m && m.method === "session/update" && m.params.sessionId === sid);
  assert.deepEqual(late, [], "session/update lines after the prompt response (C26)");
}

const waitFor = async (pred, ms = 5000) => {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (pred()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return false;
};

test("initialize, session/new, text prompt ends with end_turn", async (t) => {
  await runHub(t, [text("Hello "), text("from replay."), { turn: true }], async ({ ctx, hub, updates, cwd }) => {
    const sid = await newSession(ctx, cwd);
    const res = await prompt(ctx, sid, "say hello");
    assert.equal(res.stopReason, "end_turn");
    assert.equal(turnText(updates.filter((u) => u.sessionId === sid)), "Hello from replay.");
    assertUpdatesBeforeResponse(hub, sid);
    for (const u of updates) assert.equal(u.sessionId, sid);
  });
});

test("tool call then tool update", async (t) => {
  const file = path.join(os.tmpdir(), "hub-node-e2e-a.txt");
  const steps = [
    ev({ type: "tool_call", tool: { id: "t1", name: "read_file", title: "Read a.txt", kind: "read", status: "pending", locations: [{ path: file }] } }),
    ev({ type: "tool_update", tool: { id: "t1", status: "completed", content: [{ type: "text", text: "42 lines" }] } }),
    text("done"),
    { turn: true },
  ];
  await runHub(t, steps, async ({ ctx, hub, updates, cwd }) => {
    const sid = await newSession(ctx, cwd);
    assert.equal((await prompt(ctx, sid, "read it")).stopReason, "end_turn");
    const tool = updates.filter((u) => u.update.toolCallId === "t1").map((u) => u.update);
    assert.deepEqual(
      tool.map((u) => u.sessionUpdate),
      ["tool_call", "tool_call_update"],
    );
    assert.equal(tool[0].title, "Read a.txt");
    assert.equal(tool[0].kind, "read");
    assert.equal(tool[1].status, "completed");
    assertUpdatesBeforeResponse(hub, sid);
  });
});

test("permission answered allow, then reject", async (t) => {
  const perm = (id) => ({
    permission: { tool: { id, name: "write_file", title: `Write ${id}`, kind: "edit" } },
    allowed: [text(`ran ${id}`)],
    rejected: [text(`skipped ${id}`)],
  });
  const steps = [perm("p1"), { turn: true }, perm("p2"), { turn: true }];
  await runHub(
    t,
    steps,
    async ({ ctx, hub, updates, permissions, cwd }) => {
      const sid = await newSession(ctx, cwd);
      assert.equal((await prompt(ctx, sid, "first")).stopReason, "end_turn");
      const n1 = updates.length;
      assert.match(turnText(updates), /ran p1/);
      assert.doesNotMatch(turnText(updates), /skipped p1/);
      assert.equal((await prompt(ctx, sid, "second")).stopReason, "end_turn");
      const second = turnText(updates.slice(n1));
      assert.match(second, /skipped p2/);
      assert.doesNotMatch(second, /ran p2/);
      assert.equal(permissions.length, 2);
      assert.equal(permissions[0].toolCall.toolCallId, "p1");
      for (const p of permissions) {
        assert.equal(p.sessionId, sid);
        const ids = p.options.map((o) => o.optionId);
        assert.equal(new Set(ids).size, ids.length, "option ids must be unique (C35)");
      }
      assertUpdatesBeforeResponse(hub, sid, 0);
      assertUpdatesBeforeResponse(hub, sid, 1);
    },
    { permAnswers: ["allow_once", "reject_once"] },
  );
});

test("session/cancel mid-turn resolves the prompt with cancelled", async (t) => {
  const steps = [text("working..."), { wait_cancel: true }, text("never sent"), { turn: true }];
  await runHub(t, steps, async ({ ctx, hub, updates, cwd }) => {
    const sid = await newSession(ctx, cwd);
    const pending = prompt(ctx, sid, "long task");
    assert.ok(await waitFor(() => updates.length > 0), "no update before cancel");
    const sentAt = Date.now();
    await ctx.notify(acp.methods.agent.session.cancel, { sessionId: sid });
    const res = await pending;
    assert.equal(res.stopReason, "cancelled");
    assert.ok(Date.now() - sentAt < 2000, "cancel took over 2s (C37)");
    assert.doesNotMatch(turnText(updates), /never sent/);
    assertUpdatesBeforeResponse(hub, sid);
  });
});

test("plan and usage updates", async (t) => {
  const plan = [
    { content: "Reproduce", priority: "high", status: "completed" },
    { content: "Fix", priority: "medium", status: "in_progress" },
  ];
  const steps = [
    ev({ type: "plan", plan }),
    ev({ type: "usage", usage: { inputTokens: 100, outputTokens: 20, contextUsed: 1200, contextSize: 200000, costUsd: 0.01 } }),
    text("ok"),
    { turn: true },
  ];
  await runHub(t, steps, async ({ ctx, hub, updates, cwd }) => {
    const sid = await newSession(ctx, cwd);
    assert.equal((await prompt(ctx, sid, "plan it")).stopReason, "end_turn");
    const p = updates.find((u) => u.update.sessionUpdate === "plan");
    assert.ok(p, `no plan update in ${kinds(updates)}`);
    assert.deepEqual(
      p.update.entries.map((e) => [e.content, e.priority, e.status]),
      plan.map((e) => [e.content, e.priority, e.status]),
    );
    const u = updates.find((x) => x.update.sessionUpdate === "usage_update");
    assert.ok(u, `no usage_update in ${kinds(updates)}`);
    assert.equal(u.update.used, 1200);
    assert.equal(u.update.size, 200000);
    assertUpdatesBeforeResponse(hub, sid);
  });
});

test("unknown method -32601, bad params -32602, connection stays usable", async (t) => {
  await runHub(t, null, async ({ ctx, cwd }) => {
    await assert.rejects(ctx.request("hub/no_such_method", {}), (err) => err.code === -32601);
    await assert.rejects(ctx.request(acp.methods.agent.session.new, { mcpServers: [] }), (err) => err.code === -32602);
    await assert.rejects(
      ctx.request(acp.methods.agent.session.prompt, { sessionId: "x", prompt: "not an array" }),
      (err) => err.code === -32602,
    );
    const sid = await newSession(ctx, cwd);
    const res = await prompt(ctx, sid, "echo me");
    assert.equal(res.stopReason, "end_turn");
  });
});

test("an 8 MB prompt and its 8 MB echo pass both ways (C10)", async (t) => {
  await runHub(t, null, async ({ ctx, hub, updates, cwd }) => {
    const sid = await newSession(ctx, cwd);
    const big = "x".repeat(8 << 20);
    const res = await prompt(ctx, sid, big);
    assert.equal(res.stopReason, "end_turn");
    assert.equal(turnText(updates).length, big.length);
    assert.ok(hub.lines.some((l) => l.length > 8 << 20), "no 8 MB line on stdout");
    assertUpdatesBeforeResponse(hub, sid);
  });
});

test("raw bad input gets JSON-RPC errors and the connection keeps working (C02, C05, C07)", async () => {
  const hub = startHub(null);
  try {
    hub.writeRaw("{not json");
    hub.writeRaw('[{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}]');
    hub.writeRaw('{"jsonrpc":"2.0","method":"_hub.test/notify","params":{}}');
    hub.writeRaw('{"jsonrpc":"2.0","id":null,"method":"initialize","params":{"protocolVersion":1}}');
    hub.writeRaw('{"jsonrpc":"2.0","id":"s-1","method":"_hub.test/request","params":{}}');
    hub.writeRaw('{"jsonrpc":"2.0","id":-7,"method":"initialize","params":{"protocolVersion":2}}');
    assert.ok(await hub.waitMessages((ms) => ms.length >= 5), `got ${hub.lines.length} lines: ${hub.lines.join("\n")}`);
    const ms = hub.messages();
    const byId = (id) => ms.filter((m) => JSON.stringify(m.id) === JSON.stringify(id));
    const nulls = byId(null);
    assert.deepEqual(
      nulls.map((m) => m.error?.code ?? "result").sort(),
      [-32700, -32600, "result"].sort(),
      "parse error, batch and the id-null request answer with id null",
    );
    assert.equal(nulls.find((m) => m.result).result.protocolVersion, 1);
    assert.equal(byId("s-1")[0].error.code, -32601);
    assert.equal(byId(-7)[0].result.protocolVersion, 1);
    assert.equal(ms.length, 5, "the notification was answered");
    assert.deepEqual(hub.problems, []);
  } finally {
    const exit = await hub.close();
    assert.equal(exit?.code, 0, `hub exit ${JSON.stringify(exit)}`);
  }
});

test("set_config_option returns the complete options with the new model (C21)", async (t) => {
  await runHub(t, null, async ({ ctx, cwd }) => {
    const res = await ctx.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
    const ids = res.configOptions.map((o) => o.id);
    assert.deepEqual(ids, ["agent", "model", "mode", "handover", "delegation"]);
    for (const o of res.configOptions) assert.ok(o.options.some((v) => v.value === o.currentValue), `${o.id} current value not among its options`);
    const set = await ctx.request(acp.methods.agent.session.setConfigOption, { sessionId: res.sessionId, configId: "model", value: "replay-smart" });
    assert.deepEqual(set.configOptions.map((o) => o.id), ids);
    assert.equal(set.configOptions.find((o) => o.id === "model").currentValue, "replay-smart");
    await assert.rejects(
      ctx.request(acp.methods.agent.session.setConfigOption, { sessionId: res.sessionId, configId: "model", value: "nope" }),
      (err) => err.code === -32602,
    );
    await assert.rejects(
      ctx.request(acp.methods.agent.session.setConfigOption, { sessionId: "nope", configId: "model", value: "replay-smart" }),
      (err) => err.code === -32002,
    );
  });
});

test("after a restart: session/list finds the session, load replays it, resume sends nothing (C22, C23, C25)", async (t) => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "hub-node-home-"));
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "hub-node-cwd-"));
  const steps = [ev({ type: "tool_call", tool: { id: "t1", title: "Read a", kind: "read", status: "completed" } }), text("answer"), { turn: true }];
  try {
    let sid;
    await runHub(t, steps, async ({ ctx }) => {
      sid = await newSession(ctx, cwd);
      assert.equal((await prompt(ctx, sid, "question")).stopReason, "end_turn");
    }, { home, cwd });
    await runHub(t, steps, async ({ ctx, hub, updates }) => {
      const list = await ctx.request(acp.methods.agent.session.list, { cwd });
      assert.deepEqual(list.sessions.map((s) => s.sessionId), [sid]);
      assert.equal(list.nextCursor, undefined);
      const other = await ctx.request(acp.methods.agent.session.list, { cwd: path.join(cwd, "elsewhere") });
      assert.deepEqual(other.sessions, []);
      const load = await ctx.request(acp.methods.agent.session.load, { sessionId: sid, cwd, mcpServers: [] });
      assert.equal(typeof load, "object");
      assert.notEqual(load, null);
      assert.deepEqual(kinds(updates), ["user_message_chunk", "tool_call", "agent_message_chunk"]);
      assert.equal(updates[0].update.content.text, "question");
      const loadAt = hub.responseIndex("session/load");
      assert.ok(hub.messages().every((m, i) => i < loadAt || m?.method !== "session/update"), "replay after the load response");
      const n = updates.length;
      await ctx.request(acp.methods.agent.session.resume, { sessionId: sid, cwd, mcpServers: [] });
      assert.equal(updates.length, n, "session/resume replayed updates");
      assert.equal((await prompt(ctx, sid, "again")).stopReason, "end_turn");
    }, { home, cwd });
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
    fs.rmSync(cwd, { recursive: true, force: true });
  }
});

test("harness flags schema and framing violations", () => {
  const child = Object.assign(new EventEmitter(), { stdin: new PassThrough(), stdout: new PassThrough(), stderr: new PassThrough() });
  const hub = new Hub(child, os.tmpdir());
  hub.onStdinLine(JSON.stringify({ jsonrpc: "2.0", id: 7, method: "session/prompt", params: {} }));
  const bad = [
    "log line on stdout",
    JSON.stringify({ jsonrpc: "2.0", id: 7, result: { stopReason: "finished" } }),
    JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId: "s", update: { sessionUpdate: "current_mode_update", modeId: "x" } } }),
    JSON.stringify({ jsonrpc: "2.0", id: 8, method: "session/request_permission", params: { sessionId: "s", toolCall: { toolCallId: "t" }, options: [{ optionId: "a", name: "A", kind: "maybe" }] } }),
  ];
  for (const l of bad) hub.onStdoutLine(l);
  assert.equal(hub.problems.length, bad.length, hub.problems.join("\n"));
  hub.onStdoutLine(JSON.stringify({ jsonrpc: "2.0", id: 7, result: { stopReason: "end_turn" } }));
  assert.equal(hub.problems.length, bad.length, hub.problems.join("\n"));
});
