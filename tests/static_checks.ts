/**
 * The static checks as tests, so the full run's uvu total counts them: `deno fmt --check`, `deno lint` and
 * `deno check .`, each passing when the command exits 0 (its own output shown only when it fails). `deno task
 * test` runs this suite first; `--only` and `--quick` leave it out unless named.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { join } from "node:path";

const ROOT = join(import.meta.dirname ?? ".", "..");
const s = suite("static checks");

// deno.json's nodeModulesDir is "manual" (so `deno task demo` installs only the demo's packages); the type check
// needs auto, as the tasks run, for the @types/node it adds.
const CHECKS: string[][] = [["fmt", "--check"], ["lint"], ["check", "--node-modules-dir=auto", "."]];

for (const args of CHECKS) {
  s(`deno ${args.join(" ")}`, async () => {
    const out = await new Deno.Command(Deno.execPath(), {
      args,
      cwd: ROOT,
      env: { NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder();
    assert.ok(
      out.success,
      `deno ${args.join(" ")} failed:\n${text.decode(out.stdout)}${text.decode(out.stderr)}`,
    );
  });
}

s.run();
