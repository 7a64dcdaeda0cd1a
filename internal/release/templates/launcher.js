#!/usr/bin/env node
// Starts the hub binary from the platform package npm installed beside this
// launcher (@hubdev/hub-<os>-<cpu>). hub keeps stdin and stdout for the
// Agent Client Protocol, so both pass through untouched; the signals that
// end this launcher are passed on, and hub's exit is this launcher's exit.
"use strict";
const { spawn } = require("node:child_process");
const path = require("node:path");

const pkg = `@hubdev/hub-${process.platform}-${process.arch}`;
const exe = process.platform === "win32" ? "hub.exe" : "hub";

let bin;
try {
  bin = path.join(path.dirname(require.resolve(`${pkg}/package.json`)), "bin", exe);
} catch {
  process.stderr.write(
    `hub: no binary for ${process.platform}-${process.arch}: npm did not install ${pkg} ` +
      `(reinstall without --no-optional, or download a release archive)\n`,
  );
  process.exit(1);
}

const child = spawn(bin, process.argv.slice(2), { stdio: "inherit", windowsHide: true });
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(sig, () => child.kill(sig));
}
child.on("error", (err) => {
  process.stderr.write(`hub: cannot start ${bin}: ${err.message}\n`);
  process.exit(1);
});
child.on("exit", (code, signal) => {
  if (signal) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code ?? 1);
});
