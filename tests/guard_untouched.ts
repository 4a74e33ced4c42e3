/**
 * GUARD-01 in the engine and the hook settings: a write to the guard's state is denied in the arms that block
 * and recorded as shadow in the others, every time (no block budget); a read of it, and every tool but
 * Claude Code's writing ones, passes with no record; the settings send those tools' PreToolUse to the guard.
 * And no false fire: every shell, code and file-writing call of the ten packets (Claude Code's Bash, Write and
 * Edit, codex's exec, hermes' terminal, openai-agents' local tools), 403 of them reading Claude Code's saved
 * `tool-results/`, passes.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { existsSync } from "node:fs";
import { decide, DEFAULT_BOUNDS, type GuardEvent, TRIAL_PLACES } from "../lib/guard/engine/decide.ts";
import { type Arm, ARMS, type LedgerRecord } from "../lib/guard/engine/record.ts";
import { recordsOf } from "../lib/guard/engine/rule.ts";
import { guardPlaces } from "../lib/guard/config/guard_settings.ts";
import { hookSettings, OWN_TOOLS_MATCHER } from "../lib/guard/config/claude_settings.ts";
import { rule, WRITING_TOOLS } from "../rules/guard_untouched.ts";
import { findTrials } from "../lib/results/trials.ts";
import { readTrajectory } from "../lib/trajectories/atif.ts";
import { EXTRA, TUNING } from "../scripts/rule_regression.ts";
import { PROVIDER_PROMPT } from "./support/payloads.ts";

const s = suite("guard untouched");
const NOW = "2026-12-06T00:00:00.000Z";

function bash(command: string, id = "t1"): GuardEvent {
  return { word: "pre", session: "s", tool: "Bash", input: { command }, toolUseId: id, cwd: "/workspace" };
}

function run(arm: Arm, event: GuardEvent, records: LedgerRecord[] = recordsOf({ prompt: PROVIDER_PROMPT })) {
  return decide(event, records, { arm, bounds: DEFAULT_BOUNDS, places: TRIAL_PLACES }, NOW);
}

const TAMPER = bash("echo '{}' >> /logs/agent/fiable/s.jsonl");
const WANTS: [Arm, string | null, string | undefined][] = [
  ["stock", null, undefined],
  ["shadow", "shadow", undefined],
  ["plan", "shadow", undefined],
  ["checklist", "deny", "deny"],
  ["critic", "deny", "deny"],
];
s("every arm: denied where rules block, recorded as shadow where they only record, nothing in stock", () => {
  assert.equal(WANTS.map(([arm]) => arm), [...ARMS]);
  for (const [arm, recorded, replied] of WANTS) {
    const out = run(arm, TAMPER);
    assert.is(out.record?.decision ?? null, recorded, arm);
    const reply = out.reply as {
      hookSpecificOutput?: { permissionDecision?: string; permissionDecisionReason?: string };
    };
    assert.is(reply.hookSpecificOutput?.permissionDecision === "deny" ? "deny" : undefined, replied, arm);
    if (recorded) {
      assert.equal(out.record?.rules?.map((r) => r.id), ["GUARD-01"]);
      assert.is(out.record?.tool, "Bash");
    }
    if (replied) {
      assert.match(reply.hookSpecificOutput!.permissionDecisionReason!, "[GUARD-01] Cannot run Bash on");
    }
  }
});

s("no block budget: the third attempt is denied as the first", () => {
  const records = recordsOf({ prompt: PROVIDER_PROMPT });
  for (let i = 0; i < 3; i++) {
    const out = run("checklist", bash("rm -f /logs/agent/fiable/s.lock", `t${i}`), records);
    assert.is(out.record?.decision, "deny", `attempt ${i + 1}`);
    records.push(out.record!);
  }
});

s("reads, the agent's own files and every other tool pass with no record", () => {
  const passes: GuardEvent[] = [
    bash("cat /logs/agent/fiable/s.jsonl | jq -c .decision"),
    bash(
      "cd /logs/agent/sessions/projects/-workspace/s/tool-results && python3 -c \"print(open('x.txt').read())\"",
    ),
    bash("echo hi > notes.txt"),
    {
      word: "pre",
      session: "s",
      tool: "Read",
      input: { file_path: "/logs/agent/fiable/s.lock" },
      toolUseId: "r",
    },
    { word: "pre", session: "s", tool: "Glob", input: { pattern: "/logs/agent/fiable/*" }, toolUseId: "g" },
    {
      word: "pre",
      session: "s",
      tool: "Write",
      input: { file_path: "/workspace/x.md", content: "" },
      toolUseId: "w",
    },
  ];
  for (const event of passes) {
    const out = run("critic", event);
    assert.equal(out, {
      reply: { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow" } },
      record: null,
    }, JSON.stringify(event));
  }
});

s(
  "a relative path starts at Claude Code's cwd; the settings of $CLAUDE_CONFIG_DIR and the port from the env",
  () => {
    const places = guardPlaces("/tmp/run/ledger", {
      CLAUDE_CONFIG_DIR: "/tmp/run/cc",
      FIABLE_GUARD_PORT: "8790",
    });
    assert.equal(places.dirs, ["/tmp/run/ledger", ...TRIAL_PLACES.dirs]);
    assert.equal(places.files, ["/tmp/run/cc/settings.json", ...TRIAL_PLACES.files]);
    assert.equal(places.ports, [8790]);
    const config = { arm: "checklist" as const, bounds: DEFAULT_BOUNDS, places };
    const at = (command: string, cwd: string) =>
      decide({ ...bash(command), cwd } as GuardEvent, [], config, NOW).record?.decision;
    assert.is(at("rm -f s.lock", "/tmp/run/ledger"), "deny");
    assert.is(at("rm -f s.lock", "/tmp/run"), undefined);
    assert.is(at("cp /dev/null ../cc/settings.json", "/tmp/run/ledger"), "deny");
    assert.is(at("curl -s http://localhost:8790/health", "/"), "deny");
    assert.is(at("curl -s http://localhost:8000/mcp", "/"), undefined);
  },
);

s(
  "the hook settings send Claude Code's writing tools' PreToolUse to the guard, and no other event of theirs",
  () => {
    const { hooks } = hookSettings({ mode: "command", arm: "checklist", ledgerDir: "/l", guard: "/g.cjs" });
    const pre = hooks!.PreToolUse as { matcher: string }[];
    assert.is(pre.length, 2);
    assert.is(pre[1].matcher, OWN_TOOLS_MATCHER);
    const own = new RegExp(OWN_TOOLS_MATCHER);
    for (const tool of WRITING_TOOLS) assert.ok(own.test(tool), tool);
    for (const tool of ["Read", "Grep", "BashOutput", "mcp__healthverse__cases_get_case", "Bashful"]) {
      assert.not.ok(own.test(tool), tool);
    }
    for (const event of ["PostToolUse", "PostToolUseFailure"]) {
      assert.ok(
        (hooks![event] as { matcher: string }[]).every((h) => h.matcher !== OWN_TOOLS_MATCHER),
        event,
      );
    }
  },
);

/** The shell, code and file paths of one tool call in any harness's trajectory, as a Claude Code call. */
function asOwnCall(args: Record<string, unknown>): { tool: string; input: Record<string, unknown> } | null {
  const shell = args.command ?? args.cmd ?? args.input;
  if (typeof shell === "string" || Array.isArray(shell)) {
    return { tool: "Bash", input: { command: Array.isArray(shell) ? shell.join(" ") : shell } };
  }
  if (typeof args.code === "string") {
    return { tool: "Bash", input: { command: `python3 -c ${JSON.stringify(args.code)}` } };
  }
  const path = args.file_path ?? args.notebook_path ?? args.path;
  return typeof path === "string" ? { tool: "Write", input: { file_path: path } } : null;
}

s("no false fire: every shell, code and file-writing call of the ten packets passes", () => {
  if (!existsSync(TUNING) || !existsSync(EXTRA)) {
    console.log(`  (skipped: ${TUNING} or ${EXTRA} is absent)`);
    return;
  }
  const places = { ...TRIAL_PLACES, cwd: "/workspace", env: { ...TRIAL_PLACES.env, HOME: "/root" } };
  let calls = 0;
  let savedReads = 0;
  const fires: string[] = [];
  for (const trial of findTrials([TUNING, EXTRA])) {
    if (!trial.trajectory) continue;
    for (const step of readTrajectory(trial.trajectory).steps) {
      for (const c of step.tool_calls ?? []) {
        let args: unknown = c.arguments;
        if (typeof args === "string") {
          try {
            args = JSON.parse(args);
          } catch {
            args = { command: args };
          }
        }
        const call = args && typeof args === "object" ? asOwnCall(args as Record<string, unknown>) : null;
        if (!call) continue;
        calls++;
        if (String(call.input.command ?? "").includes("tool-results")) savedReads++;
        const fired = rule.check(call, places);
        if (fired) fires.push(`${trial.dir} ${c.function_name}: ${JSON.stringify(fired)}`);
      }
    }
  }
  assert.equal(fires, []);
  assert.ok(calls > 10_000, `${calls} calls checked`);
  assert.ok(savedReads > 300, `${savedReads} reads of tool-results/`);
});

s.run();
