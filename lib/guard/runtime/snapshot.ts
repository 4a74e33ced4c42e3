/**
 * A V8 start-up snapshot of the Node guard for command mode (issue 39: the Node bundle within twice
 * `node -e 1`). Without it a hook process spends most of its time before its event: compiling the bundle,
 * building the hook schema (zod), the rules and the critic, then running every function of its path cold
 * (measured, 500-record ledger, load ≈ 2: 81–90 ms from the guard file alone against 41–43 ms from the
 * snapshot, `node -e 1` 23 ms; bench/latency.ts gives the current figures). `node --snapshot-blob <blob>
 * --build-snapshot <guard.cjs>` runs the guard file in build mode (`prepareSnapshot`), which runs command mode's
 * own path on a few events in a temp ledger, and V8 writes the heap, the compiled code of that path included;
 * `node --snapshot-blob <blob> <guard.cjs> <event>` starts from it and runs `main` at once.
 *
 * What a hook process still pays is mostly deserializing the heap (its time grows with the blob: 6.3 MB against
 * Node's own 4.1 MB), so the snapshot holds only what pays: one copy of the source, one byte a character (a
 * guard file that wrapped the bundle as a string for a V8 code-cache loader kept two copies, two-byte: 7.9 MB
 * and 3–5 ms more), and the compiled code of the command path alone (deciding every rule's examples as well
 * added 0.3 MB and 1–2 ms; warming through the engine instead of the command path left 100 functions of the
 * path, the checkpoint's among them, to compile in every hook: 2–3 ms).
 *
 * A blob works only with the Node binary that wrote it, so `guard up` writes it in the trial container
 * (lib/guard/runtime/snapshot_blob.ts), beside the guard file or in a per-user temp folder, named by the guard
 * file's hash, the Node version and the architecture, checks that it answers a hook, and only then writes hooks
 * that use it, each with the plain `node <guard.cjs>` after `||` (lib/guard/config/claude_settings.ts): a blob
 * that is missing, not a regular file, or that Node refuses fails before reading stdin, and the guard file
 * answers instead, slower but the same.
 *
 * Nothing that differs between processes is kept from the build: arguments, the environment and the clock are
 * read when an event runs, and the warm-up's ledger folder is removed before V8 writes the heap.
 */
import process from "node:process";

/**
 * The V8 flag every process that builds or starts from the snapshot runs with (V8 refuses a snapshot built
 * under other flags): no Sparkplug. Its baseline compiler compiles the functions a hook calls most on the main
 * thread, work a process that ends some 20 ms later never earns back: 41.2 against 44.3 ms CPU a pre at 500
 * records (`node -e 1` 21.7 ms), and the same on a 1 MB result (124 against 128 ms). TurboFan stays: without it
 * that 1 MB result took 244 ms.
 */
export const SNAPSHOT_FLAG = "--no-sparkplug";

/** True in the process that builds the snapshot (`node --build-snapshot`). */
export function buildingSnapshot(): boolean {
  return process.execArgv.includes("--build-snapshot");
}

/** A hook event of each tool-event kind the warm-up sends through the command path (parse, decide, record). */
const WARM_EVENTS: [string, Record<string, unknown>][] = [
  ["pre", {
    hook_event_name: "PreToolUse",
    tool_name: "mcp__healthverse__determination_finalize",
    tool_input: {
      case_id: "CASE-3903B8ED",
      decision: "approved",
      rationale: "Criteria 1-3 met per the review.",
    },
    tool_use_id: "toolu_warm_pre",
  }],
  ["post", {
    hook_event_name: "PostToolUse",
    tool_name: "mcp__healthverse__review_get_md_review_data",
    tool_input: { case_id: "CASE-3903B8ED" },
    tool_response: [{ type: "text", text: '{"case":{"id":"CASE-3903B8ED","status":"under_review"}}' }],
    tool_use_id: "toolu_warm_post",
  }],
  ["post-fail", {
    hook_event_name: "PostToolUseFailure",
    tool_name: "mcp__healthverse__review_save_md_review",
    tool_input: { case_id: "CASE-3903B8ED" },
    error: "MCP error -32602: invalid arguments",
    tool_use_id: "toolu_warm_fail",
  }],
  ["stop", { hook_event_name: "Stop", stop_hook_active: false }],
];

/** The warm-up's session, in a ledger folder of its own that is removed after. */
const SESSION = "fiable-warm-up";

/**
 * Build mode: names `main` (run with the arguments of the process that starts from the snapshot) as what the
 * snapshot runs, then runs command mode's own path (`commandEvent`) on `WARM_EVENTS` in a temp ledger folder
 * seeded with rule examples past `CHECKPOINT_EVERY` records: the first pass folds the ledger and writes its
 * checkpoint, the second resumes from it; then one event on the stock arm. Every function a hook process runs
 * is then compiled in the snapshot, Node's own file and timer code included, and nothing else is (deciding
 * every rule's examples as well made the blob 0.3 MB bigger and the bench event 1–2 ms slower). Any error
 * while warming leaves the code cold, never the snapshot unbuilt.
 */
export async function prepareSnapshot(main: (args: string[]) => Promise<number>): Promise<void> {
  // Through getBuiltinModule (Node ≥ 20.16): a snapshot's entry cannot import(), and every hook process would
  // pay ≈ 2 ms to load node:v8 statically.
  const builtin = (process as unknown as { getBuiltinModule(id: string): unknown }).getBuiltinModule;
  const { startupSnapshot } = builtin("node:v8") as typeof import("node:v8");
  const { mkdtempSync, rmSync, writeFileSync } = builtin("node:fs") as typeof import("node:fs");
  const { tmpdir } = builtin("node:os") as typeof import("node:os");
  const { setExitCode } = await import("../io.ts");
  startupSnapshot.setDeserializeMainFunction(() => void main(process.argv.slice(2)).then(setExitCode));
  const [{ commandEvent }, { exampleRecords }, { CHECKPOINT_EVERY }, { inputCollector }, { forgetKeys }] =
    await Promise.all([
      import("../command.ts"),
      import("../resident/warm.ts"),
      import("../ledger/checkpoint.ts"),
      import("../input.ts"),
      import("../ledger/chain.ts"),
    ]);
  const dir = mkdtempSync(`${tmpdir()}/fiable-snapshot-`);
  try {
    const seed = exampleRecords(SESSION).slice(0, 2 * CHECKPOINT_EVERY);
    writeFileSync(`${dir}/${SESSION}.jsonl`, seed.map((r) => JSON.stringify(r) + "\n").join(""));
    const run = (word: string, fields: Record<string, unknown>, arm: string) => {
      const text = JSON.stringify({ session_id: SESSION, ...fields });
      const input = () => {
        const collected = inputCollector();
        collected.push(new TextEncoder().encode(text));
        return Promise.resolve(collected.done());
      };
      const env = { FIABLE_CC_ARM: arm, FIABLE_LEDGER_DIR: dir };
      return commandEvent(word as "pre", env, { input, send: () => {} });
    };
    for (let pass = 0; pass < 2; pass++) {
      for (const [word, fields] of WARM_EVENTS) await run(word, fields, "critic");
    }
    await run(...WARM_EVENTS[0], "stock");
  } catch (err) {
    process.stderr.write(`fiable-guard: the snapshot's warm-up ended early: ${(err as Error)?.message}\n`);
  } finally {
    forgetKeys();
    rmSync(dir, { recursive: true, force: true });
  }
}
