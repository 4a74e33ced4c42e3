/** The hook settings the guard is installed with. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { hookSettings, settingsJson, shellQuote } from "../lib/settings.ts";

const s = suite("settings");
const BASE = {
  arm: "critic" as const,
  ledgerDir: "/logs/agent/fiable",
  guard: "/installed-agent/fiable-guard.mjs",
};

s(
  "stock writes no hooks at all",
  () => assert.equal(hookSettings({ ...BASE, arm: "stock", mode: "command" }), {}),
);

s("command mode bakes the arm into each command and matches only healthverse tools", () => {
  const { hooks } = hookSettings({ ...BASE, mode: "command" });
  const pre = hooks!.PreToolUse[0] as { matcher: string; hooks: { command: string }[] };
  assert.is(pre.matcher, "^mcp__healthverse__");
  assert.is(
    pre.hooks[0].command,
    "FIABLE_CC_ARM=critic FIABLE_LEDGER_DIR=/logs/agent/fiable node /installed-agent/fiable-guard.mjs pre",
  );
  assert.equal(Object.keys(hooks!), [
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "Stop",
    "SubagentStop",
  ]);
});

s("http mode points every event at the resident guard", () => {
  const { hooks } = hookSettings({ ...BASE, mode: "http", port: 8787 });
  const stop = hooks!.Stop[0] as { hooks: { type: string; url: string }[] };
  assert.equal(stop.hooks[0], { type: "http", url: "http://127.0.0.1:8787/hook/stop", timeout: 10 });
});

s("SessionStart stays a command in http mode (Claude Code runs only command hooks there)", () => {
  const { hooks } = hookSettings({ ...BASE, mode: "http", port: 8787 });
  const start = hooks!.SessionStart[0] as { hooks: { type: string; command: string }[] };
  assert.is(start.hooks[0].type, "command");
  assert.match(start.hooks[0].command, "fiable-guard.mjs session-start");
});

s("http mode without a port is refused", () => {
  assert.throws(() => hookSettings({ ...BASE, mode: "http" }), /no port/);
});

s("settingsJson is stable bytes", () => {
  assert.is(settingsJson({ ...BASE, mode: "command" }), settingsJson({ ...BASE, mode: "command" }));
  assert.ok(settingsJson({ ...BASE, mode: "command" }).endsWith("}\n"));
});

s("shellQuote leaves safe words and quotes the rest", () => {
  assert.is(shellQuote("/a/b.mjs"), "/a/b.mjs");
  assert.is(shellQuote("a b"), "'a b'");
  assert.is(shellQuote("it's"), "'it'\\''s'");
});

s.run();
