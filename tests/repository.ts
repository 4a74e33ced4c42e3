/** What the repository tracks: nothing of one machine (a worktree's `.cache` link to the shared cache). */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { join } from "node:path";

const ROOT = join(import.meta.dirname ?? ".", "..");
const s = suite("repository");

s(
  "no .cache is tracked (each worktree links it to one shared folder; tracked, it replaces that folder)",
  async () => {
    const out = await new Deno.Command("git", {
      args: ["ls-files", "--", ".cache"],
      cwd: ROOT,
      stdout: "piped",
    })
      .output();
    assert.ok(out.success, "git ls-files failed");
    assert.is(new TextDecoder().decode(out.stdout).trim(), "", "`.cache` is tracked: git rm --cached .cache");
  },
);

s.run();
