/**
 * fiable-cc in Harbor 0.20's real trial sequence (../shared/chi-bench/harbor-lifecycle.md), on the stand-in
 * Harbor with the installed harness, the Node bundle, real Claude Code 2.1.219, the scripted model and stub
 * MCP servers: http hooks with a guard killed mid-run and a resumed second run(), the command-hook fallback
 * on a Harbor-hub task's three servers, a backend where nothing outlives its exec, the supervisor off, a
 * harness that writes its hooks where run()'s setup overwrites them, stock. The trial dir is then read by
 * replay, aggregate and the dashboard like a real one.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { LedgerRecord } from "../../lib/guard/engine/record.ts";
import { settingsJson } from "../../lib/guard/config/claude_settings.ts";
import { guardFileHash, snapshotName } from "../../lib/guard/runtime/snapshot_blob.ts";
import { testBundle } from "../support/guard_process.ts";
import { hookToken, readKey } from "../../lib/guard/resident/key.ts";
import { findTrials } from "../../lib/results/trials.ts";
import { readTrajectory, toolEvents } from "../../lib/trajectories/atif.ts";
import { replayTrial } from "../../lib/trajectories/replay.ts";
import { aggregateArms } from "../../lib/results/aggregate.ts";
import { verified, verifyTrees } from "../../lib/results/verify.ts";
import { createApp } from "../../dashboard/app.tsx";
import { loadFactsReader } from "../../lib/results/guard_facts_reader.ts";
import { mcp, PAYER, PAYER_PROMPT, resultShownIn } from "../support/e2e/scenario.ts";
import {
  harnessJson,
  hooksAtLaunch,
  killedGuardTrial,
  standInAvailable,
  type StandInTrial,
  standInTrial,
} from "../support/standin_trial.ts";

// The stand-in trials' result.json carry the guard's facts, which aggregate and the dashboard read.
await loadFactsReader();
const GUARD = "/installed-agent/fiable-guard.cjs";

/** The start-up snapshot `guard up` makes beside the guard in the container (lib/guard/runtime/snapshot_blob.ts). */
async function guardSnapshot(): Promise<string> {
  const node = new TextDecoder().decode(
    new Deno.Command("node", { args: ["--version"] }).outputSync().stdout,
  );
  return join(dirname(GUARD), snapshotName(guardFileHash(await testBundle()), node.trim()));
}
const LEDGER = "/logs/agent/fiable";
const HOST_ROOT_BEFORE = ["/logs", "/installed-agent"].filter((p) => existsSync(p));
const available = standInAvailable();
const s = suite("e2e harbor trial (stand-in Harbor 0.20, Claude Code 2.1.219)");
const trials: StandInTrial[] = [];

function track(trial: StandInTrial): StandInTrial {
  trials.push(trial);
  return trial;
}

/** The record lines of a ledger, for assertion messages. */
function decisions(ledger: LedgerRecord[]): string {
  return ledger.map((r) => `${r.event}:${r.decision}${r.tool ? `:${r.tool}` : ""}:${r.tool_use_id ?? ""}`)
    .join(" ");
}

function pre(ledger: LedgerRecord[], id: string): LedgerRecord | undefined {
  return ledger.find((r) => r.event === "pre" && r.tool_use_id === id);
}

/** The table of harbor-lifecycle.md: each exec's user and command, in order (a resumed run repeats 7–9). */
const SEQUENCE: [string, string | null, RegExp][] = [
  ["1 environment start", "root", /^mkdir -p \/logs\/agent \/logs\/verifier && chmod 777/],
  ["2 setup: /installed-agent", "root", /^\[ -d \/installed-agent \] \|\| mkdir -p \/installed-agent$/],
  ["3 ClaudeCode.install check", null, /^export PATH="\$HOME\/\.local\/bin:\$PATH"; command -v claude$/],
  [
    "5 fiable-cc install",
    "root",
    /^set -o pipefail; chmod 0644 \/installed-agent\/fiable-guard\.cjs && command -v node/,
  ],
  ["6 version probe", null, /^export PATH="\$HOME\/\.local\/bin:\$PATH"; claude --version$/],
  [
    "7-8 fiable-cc run: guard up + settings",
    null,
    /^set -o pipefail; mkdir -p \/logs\/agent\/fiable .* up --port /,
  ],
  [
    "9 ClaudeCode.run setup",
    null,
    /^set -o pipefail; mkdir -p \$CLAUDE_CONFIG_DIR\/debug .*> \$CLAUDE_CONFIG_DIR\/\.claude\.json$/,
  ],
  [
    "10 launch",
    null,
    /claude --verbose --output-format=stream-json --permission-mode=bypassPermissions (--continue )?--print 2>&1 \| tee \/logs\/agent\/claude-code\.txt$/,
  ],
];

s.before(() => {
  if (!available.ok) console.log(`  (skipped: the stand-in container cannot run here: ${available.why})`);
});

s("http hooks; guard killed mid-run comes back, state resumed, gap recorded; resume reuses it", async () => {
  if (!available.ok) return;
  const trial = track(await killedGuardTrial({ supervisor: true, resume: true }));
  const { ledger } = trial;
  const why = `${decisions(ledger)}\n${trial.stderr.slice(-1500)}`;
  assert.is(trial.result.exception_info, null, why);
  assert.equal(trial.result.verifier_result, { rewards: { reward: 1 } }, why);

  // The sequence of container commands, with `set -o pipefail;` where Harbor adds it, 7–9 again on resume.
  const table = [...SEQUENCE, ...SEQUENCE.slice(5)];
  assert.is(trial.execs.length, table.length + 1, trial.execs.map((e) => e.command.slice(0, 80)).join("\n"));
  table.forEach(([step, user, pattern], i) => {
    assert.is(trial.execs[i].user, user, step);
    assert.match(trial.execs[i].command, pattern, step);
    assert.is(trial.execs[i].return_code, 0, step);
  });
  assert.match(trial.execs.at(-2)!.command, "--continue --print", "the resumed run continues the session");
  assert.match(trial.execs.at(-1)!.command, "bash /tests/test.sh");
  assert.equal(trial.uploads.map((u) => u[1]), [GUARD]);
  const all = trial.execs.map((e) => e.command).join("\n");
  for (
    const banned of ["~/.claude/settings", "/etc/claude-code", "/workspace/.claude", "sessions/projects"]
  ) {
    assert.not.match(all.replace(/\$CLAUDE_CONFIG_DIR\/projects\/-app/g, ""), banned);
  }

  // When claude started, every hook was in settings.json, in the bytes settingsJson makes for the trial.
  for (const launch of trial.execs.filter((e) => e.command.includes("claude --verbose"))) {
    assert.equal(hooksAtLaunch(launch, ["healthverse"], "http"), []);
    assert.is(
      launch.config_dir["settings.json"],
      settingsJson({
        mode: "http",
        arm: "checklist",
        ledgerDir: LEDGER,
        guard: GUARD,
        snapshot: await guardSnapshot(),
        port: trial.guardPort,
        token: hookToken(readKey(join(trial.trialDir, "agent", "fiable"))!),
      }),
    );
  }

  // The kill: the supervisor brought the guard back, which recorded the restart and the gap.
  const restarts = ledger.filter((r) => r.event === "guard" && r.decision === "restart");
  const gaps = ledger.filter((r) => r.event === "guard" && r.decision === "gap");
  assert.is(restarts.length, 1, why);
  assert.match(
    restarts[0].note ?? "",
    /^supervisor restart: the resident guard \(pid \d+\) exited \(signal SIGKILL\)/,
  );
  assert.is(gaps.length, 1, why);
  const gap = gaps[0].gap!;
  const downMs = Date.parse(gap.until) - Date.parse(gap.since);
  assert.ok(downMs >= 0 && downMs < 10_000, `down for ${downMs} ms`);
  // What it says it missed is exactly what the trajectory shows uncovered: calls with no pre record.
  const calls = toolEvents(readTrajectory(join(trial.trialDir, "agent", "trajectory.json"))).calls;
  const uncovered = calls.filter((c) => c.tool && !pre(ledger, c.id));
  assert.equal(uncovered.map((c) => c.id).filter((id) => id !== "toolu_missed"), [], why);
  assert.is(gap.missed, uncovered.length, why);
  assert.equal(gap.tools, [...new Set(uncovered.map((c) => c.tool))]);

  // Later calls are decided, from the resumed state: the case lock holds (deny) and the block count
  // continues from before the kill (the third cross-case call is released, budget 2).
  assert.is(pre(ledger, "toolu_cross_1")?.decision, "deny", why);
  assert.is(pre(ledger, "toolu_cross_2")?.decision, "deny", why);
  assert.ok(pre(ledger, "toolu_cross_2")?.rules?.some((h) => h.id === "GLOBAL-01"), why);
  assert.match(resultShownIn(trial.model.main(), "toolu_cross_2")?.text ?? "", "[GLOBAL-01]");
  assert.is(pre(ledger, "toolu_cross_3")?.decision, "release", why);
  assert.is(pre(ledger, "toolu_fixed")?.decision, "allow", why);

  // Resume: the same live guard answered the second run; guard.pid names its live supervisor.
  const harness = harnessJson(trial);
  assert.is(harness.reused, true);
  assert.is(harness.hooks, "http");
  assert.equal(harness.servers, ["healthverse"]);
  assert.is(harness.claude_version, "2.1.219");
  const during = trial.notes.resumedHealth as Record<string, unknown>;
  assert.is(harness.guard_pid, during.pid, "the restarted guard is the one reused");
  assert.is(
    Number(readFileSync(join(trial.trialDir, "agent", "fiable", "guard.pid"), "utf8")),
    during.supervisor,
  );
  assert.is(pre(ledger, "toolu_resumed")?.decision, "allow", why);
  assert.ok(ledger.some((r) => r.event === "session-start" && r.note?.includes("source=resume")), why);

  // Harbor's files: one session dir, so a trajectory; the ledger beside it, not under sessions/projects.
  const projects = join(trial.trialDir, "agent", "sessions", "projects");
  assert.ok(existsSync(join(projects, "-workspace")), "claude ran in /workspace");
  assert.ok(existsSync(join(trial.trialDir, "agent", "trajectory.json")));
  assert.ok(existsSync(join(trial.trialDir, "config.json")));
  const config = JSON.parse(readFileSync(join(trial.trialDir, "config.json"), "utf8"));
  assert.equal(config.agent.kwargs, { arm: "checklist", guard_port: trial.guardPort });
  assert.is((trial.result.agent_info as Record<string, unknown>).version, "2.1.219");
});

s("the trial dir reads like a real one: replay, aggregate and the dashboard", async () => {
  if (!available.ok) return;
  const trial = trials[0];
  const [ref] = findTrials([trial.trialsDir]);
  assert.ok(ref, "findTrials finds the trial");
  assert.is(ref.domain, "pa_um");
  assert.ok(ref.ledgers.length >= 1);
  const replayed = replayTrial(ref);
  assert.ok(!("reason" in replayed), JSON.stringify(replayed));
  if ("reason" in replayed) return;
  assert.is(replayed.passed, true);
  assert.is(replayed.harness, "claude-code");
  // Every call reached a server but the denied ones.
  const mcpCalls = trial.calls.length +
    trial.ledger.filter((r) => r.event === "pre" && r.decision === "deny").length;
  assert.is(replayed.toolCalls.mcp, mcpCalls, JSON.stringify(replayed.toolCalls));
  const fired = replayed.arms.checklist?.rules["GLOBAL-01"]?.calls.find((c) => c.id === "toolu_cross_1");
  assert.is(fired?.decision, "deny", "replay denies the first cross-case call as the live guard did");

  const result = aggregateArms([{ name: "checklist", roots: [trial.trialsDir] }]);
  const row = result.rows.find((r) => r.arm === "checklist" && r.domain === "overall")!;
  assert.is(row.n_trials, 1);
  assert.is(row.pass_at_1, 1);
  assert.is(row.mean_mcp_calls, mcpCalls);
  assert.ok((row.guard?.denies ?? 0) >= 2, JSON.stringify(row.guard));

  const { app, store } = createApp({ logs: [trial.trialsDir], results: [] }, { scanMs: 0, tailMs: 0 });
  store.refresh({ scanMs: 0, tailMs: 0 });
  const dash = store.rows().find((r) => r.trialDir === trial.trialDir);
  assert.ok(dash, "the dashboard lists the trial");
  assert.is(dash!.outcome, "passed");
  assert.ok(dash!.blocks >= 2);
  const page = await app.request(`/trials/${dash!.id}`);
  assert.is(page.status, 200);
  assert.match(await page.text(), "review.submit_md_case_decision");
});

s("fallback: guard port taken, command hooks for a Harbor-hub task's three servers", async () => {
  if (!available.ok) return;
  const servers = ["chi-bench-provider", "chi-bench-payer", "chi-bench-cm"];
  const trial = track(
    await standInTrial({
      arm: "critic",
      fallback: true,
      servers: [
        { name: servers[0], seat: "provider" },
        { name: servers[1], seat: "payer" },
        { name: servers[2], seat: "cm" },
      ],
      prompt: PAYER_PROMPT,
      script: [
        { calls: [mcp("payer_intake_hub_list_intake_queue", {}, "toolu_hub_queue", servers[1])] },
        { calls: [mcp("cm_intake_list_referral_queue", {}, "toolu_hub_cm", servers[2])] },
        { calls: [mcp("determination_finalize", PAYER.finalize().input, "toolu_hub_early", servers[1])] },
        { text: "Stopping here." },
      ],
    }),
  );
  const why = `${decisions(trial.ledger)}\n${trial.stderr.slice(-1500)}`;
  const launch = trial.execs.find((e) => e.command.includes("claude --verbose"))!;
  assert.equal(hooksAtLaunch(launch, servers, "command"), [], why);
  assert.is(
    launch.config_dir["settings.json"],
    settingsJson({
      mode: "command",
      arm: "critic",
      ledgerDir: LEDGER,
      guard: GUARD,
      snapshot: await guardSnapshot(),
      port: trial.guardPort,
      servers,
    }),
  );
  assert.equal(JSON.parse(launch.config_dir[".claude.json"]!).mcpServers[servers[2]].type, "http");
  const harness = harnessJson(trial);
  assert.equal([harness.hooks, harness.supervisor, harness.servers], ["command", false, servers]);
  assert.not.ok(
    existsSync(join(trial.trialDir, "agent", "fiable", "guard.pid")),
    "no pid file for a guard that never came up",
  );
  assert.is(pre(trial.ledger, "toolu_hub_queue")?.tool, "payer_intake_hub.list_intake_queue", why);
  assert.is(pre(trial.ledger, "toolu_hub_cm")?.tool, "cm_intake.list_referral_queue", why);
  assert.is(pre(trial.ledger, "toolu_hub_early")?.decision, "deny", why);
  assert.match(resultShownIn(trial.model.main(), "toolu_hub_early")?.text ?? "", "[UM-01]");
});

s(
  "nothing outlives its exec: the SessionStart hook starts the guard inside claude's process tree",
  async () => {
    if (!available.ok) return;
    const trial = track(
      await standInTrial({
        reapAfterExec: true,
        prompt: PAYER_PROMPT,
        script: [{ calls: [PAYER.queue] }, { calls: [PAYER.finalize("toolu_reaped_early")] }, {
          text: "Stopping.",
        }],
      }),
    );
    const why = `${decisions(trial.ledger)}\n${trial.stderr.slice(-1500)}`;
    const up = trial.execs.find((e) => e.command.includes(" up --port "))! as { reaped?: number };
    assert.ok((up.reaped ?? 0) >= 1, "the guard started by `up` was killed when its exec returned");
    assert.is(harnessJson(trial).hooks, "http", "it answered /health during its exec");
    const restart = trial.ledger.find((r) => r.event === "guard" && r.decision === "restart");
    assert.match(
      restart?.note ?? "",
      /^SessionStart check: the resident guard on port \d+ did not answer; started it again/,
      why,
    );
    assert.ok(trial.ledger.some((r) => r.event === "prompt"), why);
    assert.is(pre(trial.ledger, "toolu_reaped_early")?.decision, "deny", why);
  },
);

s(
  "supervisor off: a killed guard is started again by the next hook's own check; the call that found it down " +
    "goes unrecorded, and verify catches that",
  async () => {
    if (!available.ok) return;
    const trial = track(await killedGuardTrial({ supervisor: false }));
    const why = `${decisions(trial.ledger)}\n${trial.stderr.slice(-1500)}`;
    assert.is(harnessJson(trial).supervisor, false);
    assert.is(trial.notes.cameBack, true, "the asynchronous check beside the hooks started it again");
    const restarts = trial.ledger.filter((r) => r.event === "guard" && r.decision === "restart");
    assert.is(restarts.length, 1, why);
    assert.match(
      restarts[0].note ?? "",
      /^hook check: the resident guard on port \d+ did not answer; started it/,
    );
    assert.is(pre(trial.ledger, "toolu_cross_1")?.decision, "deny", why);
    assert.is(
      pre(trial.ledger, "toolu_missed"),
      undefined,
      `the call that found it down has no record; ${why}`,
    );
    // Back with the session's state folded from its ledger: the case lock still denies the other case.
    assert.is(pre(trial.ledger, "toolu_cross_2")?.decision, "deny", why);
    // verify catches the call that went unguarded: it has no pre record, so the trial fails coverage.
    const report = verifyTrees([trial.trialsDir]);
    assert.not.ok(verified(report), why);
    const [arm] = report.arms;
    assert.equal([arm.integrity.below_coverage, arm.integrity.gaps], [1, 1], why);
    assert.match(report.problems.map((p) => p.message).join("\n"), /pre record/);
  },
);

s("verify: the same trial with nothing killed passes, every χ-World call covered", async () => {
  if (!available.ok) return;
  const trial = track(await killedGuardTrial({ kill: false }));
  const report = verifyTrees([trial.trialsDir]);
  const why = `${JSON.stringify(report.problems)}\n${decisions(trial.ledger)}`;
  assert.ok(verified(report), why);
  const [arm] = report.arms;
  assert.equal(
    [
      arm.integrity.trials,
      arm.integrity.full_coverage,
      arm.integrity.without_ledger,
      arm.integrity.hook_modes,
    ],
    [1, 1, 0, { http: 1 }],
    why,
  );
});

s("a harness writing its hooks where ClaudeCode.run's setup overwrites them is caught", async () => {
  if (!available.ok) return;
  const trial = track(
    await standInTrial({
      harness: {
        className: "HooksInClaudeJson",
        source: "from chi_bench.experiment.agents.fiable_cc_harness import FiableClaudeCode\n\n\n" +
          "class HooksInClaudeJson(FiableClaudeCode):\n" +
          '    """Writes settings.json\'s bytes to .claude.json, which run()\'s setup overwrites."""\n\n' +
          "    def start_guard_command(self) -> str:\n" +
          '        return super().start_guard_command().replace("/sessions/settings.json", "/sessions/.claude.json")\n',
      },
      prompt: PAYER_PROMPT,
      script: [{ calls: [PAYER.finalize("toolu_unguarded")] }, { text: "Stopping." }],
    }),
  );
  const launch = trial.execs.find((e) => e.command.includes("claude --verbose"))!;
  const up = trial.execs.findIndex((e) => e.command.includes(" up --port "));
  assert.match(trial.execs[up + 1].config_dir[".claude.json"] ?? "", '"hooks"', "the hooks were written…");
  assert.equal(hooksAtLaunch(launch, ["healthverse"], "http"), [
    "settings.json is absent when claude starts: no hooks",
  ]);
  assert.is(pre(trial.ledger, "toolu_unguarded"), undefined, "…and the trial ran unguarded");
});

s("stock: nothing uploaded, no guard, no hooks; plain Claude Code under the same harness", async () => {
  if (!available.ok) return;
  const trial = track(
    await standInTrial({
      arm: "stock",
      prompt: PAYER_PROMPT,
      script: [{ calls: [PAYER.queue] }, { text: "Done." }],
    }),
  );
  assert.equal(trial.uploads, []);
  assert.not.ok(trial.execs.some((e) => e.command.includes(" up --port ")));
  const launch = trial.execs.find((e) => e.command.includes("claude --verbose"))!;
  assert.is(launch.config_dir["settings.json"], null);
  assert.equal(trial.ledger, []);
  assert.is((trial.result.agent_info as Record<string, unknown>).name, "fiable-cc");
  assert.is(trial.calls.length, 1, "the call reached the server");
});

s("an unknown arm kwarg stops the trial in setup, with the valid arms listed", async () => {
  if (!available.ok) return;
  const trial = track(await standInTrial({ arm: "critc" as "critic", prompt: PAYER_PROMPT, script: [] }));
  const exc = trial.result.exception_info as Record<string, string>;
  assert.match(
    exc.exception_message,
    'Cannot start fiable-cc: arm "critc" is unknown. Use one of stock, shadow, plan, checklist, critic.',
  );
  assert.is(trial.result.verifier_result, null, "a setup error is not verified");
});

s.after(() => {
  for (const trial of trials) trial.dispose();
  assert.equal(
    ["/logs", "/installed-agent"].filter((p) => existsSync(p)),
    HOST_ROOT_BEFORE,
    "the host's root is untouched",
  );
});

s.run();
