/**
 * install.ts driven in-process for the installer's suites (tests/install.ts, tests/run_script.ts): its output
 * captured, fixture checkouts and temp dirs tracked for removal, a checkout with fiable-cc registered.
 */
import * as assert from "uvu/assert";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "../../install.ts";
import type { InstallFs } from "../../lib/install/fs.ts";
import { chiBenchFixture, type FixtureOptions } from "./chibench_fixture.ts";
import { captured } from "./captured.ts";

/** Every temp dir made here, removed by `cleanup`. */
const TEMP_DIRS: string[] = [];

/** Removes every temp dir made here (a suite's `after`); later calls make new ones. */
export function cleanup(): void {
  for (const dir of TEMP_DIRS.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** A stand-in guard bundle (install copies it; nothing here runs it), made again after a cleanup. */
export function fakeBundle(): string {
  const path = join(tempDir("fiable-fake-bundle-"), "fiable-guard.cjs");
  writeFileSync(path, "// stand-in guard bundle\nconsole.log('{}');\n");
  return path;
}

/** Runs install.ts's main in-process (on `fs`, the disk by default) and captures what it printed. */
export function cli(args: string[], fs?: InstallFs): Promise<{ code: number; out: string; err: string }> {
  return captured((a) => main(a, fs), args);
}

/** A fixture checkout, removed with the other temp dirs. */
export function fixture(options: FixtureOptions = {}): string {
  const dir = chiBenchFixture(options);
  TEMP_DIRS.push(dir);
  return dir;
}

/** A temp dir, removed with the others. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  TEMP_DIRS.push(dir);
  return dir;
}

/** A fixture checkout with fiable-cc registered by a real `install --apply`. */
export async function installed(bundle = fakeBundle(), options: FixtureOptions = {}): Promise<string> {
  const dir = fixture(options);
  const run = await cli(["--chi-bench", dir, "--bundle", bundle, "--apply"]);
  assert.is(run.code, 0, run.err);
  return dir;
}
