// Test harness: runs `HUB_BIN acp` with the replay agent and connects the
// official ACP TypeScript SDK to it, validating every stdout message against
// the ACP JSON Schema. Modules come from $HUB_E2E_CACHE/acp-sdk (installed
// by scripts/e2e-deps.sh), so nothing is installed next to this file.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { PassThrough, Readable } from "node:stream";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "..", "..");

export const cacheDir = process.env.HUB_E2E_CACHE || path.join(root, ".cache", "e2e");
export const hubBin = process.env.HUB_BIN || path.join(root, "bin", "hub");

const sdkRequire = createRequire(path.join(cacheDir, "acp-sdk", "node_modules", "_resolver.cjs"));

function loadSDK() {
  try {
    return sdkRequire.resolve("@agentclientprotocol/sdk");
  } catch (err) {
    throw new Error(`ACP SDK not found under ${cacheDir}/acp-sdk (run 'make e2e-deps'): ${err.message}`);
  }
}

export const acp = await import(pathToFileURL(loadSDK()).href);
const ajvMod = sdkRequire("ajv/dist/2020");
const Ajv2020 = ajvMod.default ?? ajvMod;

// findSchema: $ACP_SCHEMA, else shared/acp/schema.json in a parent dir, else
// the copy shipped in the SDK (byte-identical for 2.4.0).
function findSchema() {
  if (process.env.ACP_SCHEMA) return process.env.ACP_SCHEMA;
  for (let d = here; ; d = path.dirname(d)) {
    const p = path.join(d, "shared", "acp", "schema.json");
    if (fs.existsSync(p)) return p;
    if (path.dirname(d) === d) break;
  }
  return sdkRequire.resolve("@agentclientprotocol/sdk/schema/v1/schema.json");
}

export const schemaPath = findSchema();
const schema = JSON.parse(fs.readFileSync(schemaPath, "utf8"));
const SCHEMA_ID = "https://hub.local/acp-schema.json";
const ajv = new Ajv2020({ strict: false, allErrors: true });
// The schema's numeric formats (Rust types) as range checks; "uri" loosely.
const intRange = (lo, hi) => ({ type: "number", validate: (n) => Number.isInteger(n) && n >= lo && n <= hi });
ajv.addFormat("int32", intRange(-(2 ** 31), 2 ** 31 - 1));
ajv.addFormat("uint16", intRange(0, 2 ** 16 - 1));
ajv.addFormat("uint32", intRange(0, 2 ** 32 - 1));
ajv.addFormat("int64", intRange(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER));
ajv.addFormat("uint64", intRange(0, Number.MAX_SAFE_INTEGER));
ajv.addFormat("double", { type: "number", validate: Number.isFinite });
ajv.addFormat("uri", /^[a-zA-Z][a-zA-Z0-9+.-]*:/);
ajv.addSchema({ ...schema, $id: SCHEMA_ID });

const validators = new Map();
function validatorFor(def) {
  if (!validators.has(def)) {
    const v = ajv.getSchema(`${SCHEMA_ID}#/$defs/${def}`);
    if (!v) throw new Error(`schema has no $defs/${def}`);
    validators.set(def, v);
  }
  return validators.get(def);
}

// Method -> $defs type, from the schema's x-method / x-side annotations.
const defsByMethod = { request: {}, notification: {}, response: {} };
for (const [name, def] of Object.entries(schema.$defs)) {
  const m = def["x-method"];
  if (!m) continue;
  if (name.endsWith("Response") && def["x-side"] === "agent") defsByMethod.response[m] = name;
  else if (name.endsWith("Request") && def["x-side"] === "client") defsByMethod.request[m] = name;
  else if (name.endsWith("Notification") && def["x-side"] === "client") defsByMethod.notification[m] = name;
}

function check(def, value, what, problems) {
  const v = validatorFor(def);
  if (!v(value)) problems.push(`${what} fails $defs/${def}: ${ajv.errorsText(v.errors)}: ${JSON.stringify(value).slice(0, 400)}`);
}

// Splits a byte stream into lines and calls onLine for each.
function lineSplitter(onLine) {
  let buf = "";
  return (chunk) => {
    buf += chunk.toString("utf8");
    let i;
    while ((i = buf.indexOf("\n")) >= 0) {
      onLine(buf.slice(0, i));
      buf = buf.slice(i + 1);
    }
  };
}

/** Writes a replay script (array of steps) and returns its path. */
export function writeScript(dir, steps) {
  const p = path.join(dir, "script.jsonl");
  fs.writeFileSync(p, steps.map((s) => JSON.stringify(s)).join("\n") + "\n");
  return p;
}

/**
 * Starts `hub acp` with the replay agent playing steps (or echoing when
 * steps is null). Returns a Hub with the raw stdout lines, the schema
 * problems found so far, and an SDK stream connected to the process.
 * With opts.home the hub runs in that HOME (its session index survives the
 * process; the caller removes the directory), else in a fresh one that
 * close() removes.
 */
export function startHub(steps, opts = {}) {
  const home = opts.home ?? fs.mkdtempSync(path.join(os.tmpdir(), "hub-node-e2e-"));
  const cfgDir = path.join(home, ".config", "hub");
  fs.mkdirSync(cfgDir, { recursive: true });
  let cfg = 'default_agent = "replay"\n\n[agents.replay]\ntype = "replay"\n';
  if (steps) cfg += `options = { script = ${JSON.stringify(writeScript(home, steps))} }\n`;
  fs.writeFileSync(path.join(cfgDir, "config.toml"), cfg);
  const env = { ...process.env, HOME: home, HUB_LOG: "debug" };
  for (const k of Object.keys(env)) if (k.startsWith("XDG_") || k === "HUB_REPLAY_SCRIPT") delete env[k];
  Object.assign(env, {
    XDG_CONFIG_HOME: path.join(home, ".config"),
    XDG_STATE_HOME: path.join(home, ".local", "state"),
    XDG_CACHE_HOME: path.join(home, ".cache"),
  });
  const child = spawn(hubBin, ["acp"], { cwd: home, env, stdio: ["pipe", "pipe", "pipe"] });
  const hub = new Hub(child, home);
  hub.ownHome = !opts.home;
  return hub;
}

export class Hub {
  constructor(child, home) {
    this.child = child;
    this.home = home;
    this.lines = []; // raw stdout lines, in order
    this.promptsSent = 0; // session/prompt requests written so far
    this.lineTurn = []; // per stdout line: promptsSent when it arrived
    this.problems = []; // schema / framing violations
    this.sent = new Map(); // our request id -> method
    this.stderr = "";
    this.ownHome = true; // close() removes home
    this.exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
    child.stderr.on("data", (d) => (this.stderr += d.toString("utf8")));

    const sdkIn = new PassThrough();
    const tee = new PassThrough();
    child.stdout.pipe(sdkIn);
    child.stdout.pipe(tee);
    tee.on("data", lineSplitter((l) => this.onStdoutLine(l)));

    const split = lineSplitter((l) => this.onStdinLine(l));
    const stdin = child.stdin;
    const output = new WritableStream({
      write(chunk) {
        split(Buffer.from(chunk));
        return new Promise((resolve, reject) => stdin.write(chunk, (err) => (err ? reject(err) : resolve())));
      },
      close() {
        stdin.end();
      },
      abort() {
        stdin.end();
      },
    });
    this.stream = acp.ndJsonStream(output, Readable.toWeb(sdkIn));
  }

  onStdinLine(line) {
    try {
      const msg = JSON.parse(line);
      if (msg.method && msg.id !== undefined) this.sent.set(JSON.stringify(msg.id), msg.method);
      if (msg.method === "session/prompt") this.promptsSent++;
    } catch {
      // raw test lines may be malformed on purpose
    }
  }

  onStdoutLine(line) {
    this.lines.push(line);
    this.lineTurn.push(this.promptsSent);
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      this.problems.push(`C01: stdout line is not JSON: ${line.slice(0, 200)}`);
      return;
    }
    if (msg === null || typeof msg !== "object" || Array.isArray(msg)) {
      this.problems.push(`C01: stdout line is not a JSON object: ${line.slice(0, 200)}`);
      return;
    }
    if (msg.jsonrpc !== "2.0") this.problems.push(`jsonrpc != "2.0": ${line.slice(0, 200)}`);
    if (msg.method) {
      const kind = msg.id !== undefined ? "request" : "notification";
      const def = defsByMethod[kind][msg.method];
      if (!def) this.problems.push(`hub sent unknown ${kind} ${msg.method}`);
      else check(def, msg.params, `${msg.method} params`, this.problems);
      return;
    }
    const method = this.sent.get(JSON.stringify(msg.id));
    if (msg.error !== undefined) {
      check("Error", msg.error, `error response to ${method ?? "?"}`, this.problems);
      return;
    }
    if (!method) {
      this.problems.push(`response to an id we never sent: ${line.slice(0, 200)}`);
      return;
    }
    const def = defsByMethod.response[method];
    if (def) check(def, msg.result, `${method} result`, this.problems);
  }

  /** Writes one raw line to hub's stdin, bypassing the SDK. */
  writeRaw(line) {
    this.onStdinLine(line);
    this.child.stdin.write(line + "\n");
  }

  /** Waits until pred(parsed stdout messages) holds, or ms pass. */
  async waitMessages(pred, ms = 10000) {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      if (pred(this.messages())) return true;
      await new Promise((r) => setTimeout(r, 20));
    }
    return false;
  }

  /** Parsed stdout messages, in order. */
  messages() {
    return this.lines.map((l) => {
      try {
        return JSON.parse(l);
      } catch {
        return null;
      }
    });
  }

  /** Index of the response line to our request with this method (nth). */
  responseIndex(method, nth = 0) {
    const msgs = this.messages();
    let seen = 0;
    for (let i = 0; i < msgs.length; i++) {
      const m = msgs[i];
      if (m && !m.method && this.sent.get(JSON.stringify(m.id)) === method && seen++ === nth) return i;
    }
    return -1;
  }

  /** Ends stdin and waits for the process to exit (kills it after ms). */
  async close(ms = 10000) {
    this.child.stdin.end();
    let timer;
    const timeout = new Promise((resolve) => (timer = setTimeout(() => resolve(null), ms)));
    const res = await Promise.race([this.exited, timeout]);
    clearTimeout(timer);
    if (!res) {
      this.child.kill("SIGKILL");
      await this.exited;
    }
    if (this.ownHome) fs.rmSync(this.home, { recursive: true, force: true });
    return res;
  }

  stderrTail(n = 30) {
    return this.stderr.trimEnd().split("\n").slice(-n).join("\n");
  }
}
