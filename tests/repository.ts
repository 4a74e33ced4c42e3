/**
 * What the repository tracks: nothing of one machine (a worktree's `.cache` link to the shared cache), and docs
 * whose links land (README.md and docs/*.md link each other by file and heading).
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

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

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s/g, "-");
}

/** The anchors of a Markdown file's headings (outside code blocks). */
function anchors(text: string): Set<string> {
  const prose = text.replace(/```[\s\S]*?```/g, "");
  return new Set([...prose.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1])));
}

const DOCS = [
  "README.md",
  ...readdirSync(join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`),
];

s("every relative link in README.md and docs/*.md names a file that exists and a heading it has", () => {
  const broken: string[] = [];
  for (const doc of DOCS) {
    const text = readFileSync(join(ROOT, doc), "utf8").replace(/```[\s\S]*?```/g, "");
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target)) continue;
      const [file, anchor] = target.split("#");
      const path = file ? join(ROOT, dirname(doc), file) : join(ROOT, doc);
      if (!existsSync(path)) broken.push(`${doc}: ${target} (no such file)`);
      else if (anchor && !anchors(readFileSync(path, "utf8")).has(decodeURIComponent(anchor))) {
        broken.push(`${doc}: ${target} (no such heading)`);
      }
    }
  }
  assert.equal(broken, []);
});

s.run();
