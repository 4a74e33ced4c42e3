/** The hook settings the guard is installed with. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import {
  hookSettings,
  serverToolPrefix,
  settingsJson,
  shellQuote,
  toolMatcher,
} from "../lib/guard/config/claude_settings.ts";

const s = suite("settings");
const BASE = {
  arm: "critic" as const,
  ledgerDir: "/logs/agent/fiable",
  guard: "/installed-agent/fiable-guard.cjs",
};

s(
  "stock writes no hooks at all",
  () => assert.equal(hookSettings({ ...BASE, arm: "stock", mode: "command" }), {}),
);

s("command mode bakes the arm into each command; by default the tool hooks match healthverse tools", () => {
  const { hooks } = hookSettings({ ...BASE, mode: "command" });
  const pre = hooks!.PreToolUse[0] as { matcher: string; hooks: { command: string }[] };
  assert.is(pre.matcher, "^mcp__healthverse__");
  assert.is(
    pre.hooks[0].command,
    "FIABLE_CC_ARM=critic FIABLE_LEDGER_DIR=/logs/agent/fiable node /installed-agent/fiable-guard.cjs pre",
  );
  assert.equal(Object.keys(hooks!), [
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "Stop",
    "SubagentStop",
    "StopFailure",
  ]);
});

/** Tool names the real Claude Code gives a server's tools (tests/e2e/server_names.ts checks the spelling). */
const MATCHES: [string[], string, boolean][] = [
  [["healthverse"], "mcp__healthverse__determination_finalize", true],
  [["healthverse"], "mcp__healthverse", false],
  [["healthverse"], "mcp__chi-bench__determination_finalize", false],
  [["healthverse"], "x_mcp__healthverse__determination_finalize", false],
  [["chi-bench"], "mcp__chi-bench__determination_finalize", true],
  [["chi-bench"], "mcp__chi-bench-payer__determination_finalize", false],
  [["chi-bench-provider", "chi-bench-payer", "chi-bench-cm"], "mcp__chi-bench-payer__triage_get", true],
  [["chi-bench-provider", "chi-bench-payer", "chi-bench-cm"], "mcp__chi-bench-cm__cm_intake_open_case", true],
  [["chi-bench-provider", "chi-bench-payer", "chi-bench-cm"], "mcp__chi-bench__triage_get", false],
  [["chi-bench-provider", "chi-bench-payer", "chi-bench-cm"], "mcp__healthverse__triage_get", false],
  [["hv.world"], "mcp__hv_world__triage_get", true],
  // Spellings that end in `_`, hold `__`, or come from spaces and punctuation (Claude Code 2.1.219 and 2.1.332).
  [["healthverse_"], "mcp__healthverse___triage_get", true],
  [["healthverse_"], "mcp__healthverse__triage_get", false],
  [["a__b"], "mcp__a__b__triage_get", true],
  [["chi bench!"], "mcp__chi_bench___triage_get", true],
  [[" healthverse"], "mcp___healthverse__triage_get", true],
  [[" healthverse"], "mcp__healthverse__triage_get", false],
  [[" "], "mcp_____triage_get", true],
  [["-x"], "mcp__-x__triage_get", true],
];
for (const [servers, tool, hit] of MATCHES) {
  s(`servers ${servers.join(",")}: ${tool} ${hit ? "matches" : "does not match"}`, () => {
    const { hooks } = hookSettings({ ...BASE, mode: "http", port: 8787, servers });
    for (const event of ["PreToolUse", "PostToolUse", "PostToolUseFailure"]) {
      const matcher = (hooks![event][0] as { matcher: string }).matcher;
      assert.is(new RegExp(matcher).test(tool), hit, `${event} ${matcher}`);
    }
  });
}

s("the matcher names each declared server once, exactly in Claude Code's spelling (nothing trimmed)", () => {
  assert.is(toolMatcher(["a", "b", "a", " c "]), "^mcp__(?:a|b|_c_)__");
  assert.is(serverToolPrefix("hv world/1"), "hv_world_1");
  assert.is(serverToolPrefix("héalth"), "h_alth");
  assert.is(serverToolPrefix("claude.ai My  Drive!"), "claude_ai_My_Drive");
});

s("no server, or an empty name, is refused with one Cannot line", () => {
  assert.throws(() => toolMatcher([]), /^Cannot write hook settings: no MCP server name\./);
  assert.throws(
    () => hookSettings({ ...BASE, mode: "command", servers: ["healthverse", ""] }),
    /^Cannot write hook settings for MCP server "": it is empty\. Pass/,
  );
});

s("http mode points every event at the resident guard", () => {
  const { hooks } = hookSettings({ ...BASE, mode: "http", port: 8787 });
  const stop = hooks!.Stop[0] as { hooks: { type: string; url: string }[] };
  assert.equal(stop.hooks[0], { type: "http", url: "http://127.0.0.1:8787/hook/stop", timeout: 10 });
});

s("with the trial's hook secret, every http hook sends it and the SessionStart command passes it on", () => {
  const token = "ab".repeat(32);
  const { hooks } = hookSettings({ ...BASE, mode: "http", port: 8787, token });
  const pre = hooks!.PreToolUse[0] as { hooks: Record<string, unknown>[] };
  assert.equal(pre.hooks[0], {
    type: "http",
    url: "http://127.0.0.1:8787/hook/pre",
    timeout: 10,
    headers: { Authorization: `Bearer ${token}` },
  });
  const start = hooks!.SessionStart[0] as { hooks: { command: string }[] };
  assert.match(start.hooks[0].command, `FIABLE_GUARD_PORT=8787 FIABLE_GUARD_TOKEN=${token} `);
});

s("SessionStart stays a command in http mode (Claude Code runs only command hooks there)", () => {
  const { hooks } = hookSettings({ ...BASE, mode: "http", port: 8787 });
  const start = hooks!.SessionStart[0] as { hooks: { type: string; command: string }[] };
  assert.is(start.hooks[0].type, "command");
  assert.match(start.hooks[0].command, "fiable-guard.cjs session-start");
  assert.match(start.hooks[0].command, "FIABLE_GUARD_PORT=8787 ", "so it can check the resident guard");
  const command = hookSettings({ ...BASE, mode: "command" }).hooks!.SessionStart[0] as typeof start;
  assert.not.match(command.hooks[0].command, "FIABLE_GUARD_PORT");
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
