/**
 * The guard's file I/O (lib/guard/io.ts): in the ledger dir nothing is written or read through a symbolic link
 * or at anything but a regular file (a FIFO never blocks), files are created exclusively under unpredictable
 * temp names, and an append never joins a half line (issue 32). Deno's node:fs honours O_NOFOLLOW only without
 * permission flags (under `--deny-run` it follows the link), so this suite is not in the quick tier;
 * tests/hostile_ledger.ts holds the real Node bundle to the same refusals.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { existsSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import * as io from "../lib/guard/io.ts";
import { Digest, digest } from "../lib/guard/ledger/digest.ts";

const fresh = () => mkdtempSync(join(tmpdir(), "fiable-host-"));

/** Throws with `code`. */
function refused(run: () => unknown, code: string): void {
  try {
    run();
  } catch (err) {
    assert.is((err as { code?: string }).code, code, String(err));
    return;
  }
  assert.unreachable(`not refused (${code})`);
}

{
  const host = io;
  const pid = process.pid;
  const s = suite("io");

  s("appendLine creates a file 0644, appends whole lines, and starts a new line after a half one", () => {
    const file = join(fresh(), "a.jsonl");
    assert.is(host.appendLine(file, "one\n"), 4);
    writeFileSync(file, readFileSync(file, "utf8") + "half");
    assert.is(host.appendLine(file, "two\n"), 5);
    assert.is(readFileSync(file, "utf8"), "one\nhalf\ntwo\n");
    assert.is(Deno.statSync(file).mode! & 0o777, 0o644);
  });

  s("appendLine refuses a link (its target untouched, a dangling one never created) and a directory", () => {
    const dir = fresh();
    const target = join(dir, "target");
    writeFileSync(target, "T");
    symlinkSync(target, join(dir, "linked.jsonl"));
    refused(() => host.appendLine(join(dir, "linked.jsonl"), "x\n"), "ELOOP");
    assert.is(readFileSync(target, "utf8"), "T");
    symlinkSync(join(dir, "nowhere"), join(dir, "dangling.jsonl"));
    assert.throws(() => host.appendLine(join(dir, "dangling.jsonl"), "x\n"));
    assert.not.ok(existsSync(join(dir, "nowhere")));
    Deno.mkdirSync(join(dir, "dir.jsonl"));
    assert.throws(() => host.appendLine(join(dir, "dir.jsonl"), "x\n"));
  });

  s("readBytes and readRange refuse a link; readTail (a transcript) follows one", () => {
    const dir = fresh();
    writeFileSync(join(dir, "target"), "secret");
    symlinkSync(join(dir, "target"), join(dir, "link"));
    refused(() => host.readBytes(join(dir, "link"), 0, 6), "ELOOP");
    refused(() => host.readRange(join(dir, "link"), 0, 6), "ELOOP");
    assert.is(host.readTail(join(dir, "link"), 3), "ret");
    assert.is(host.readRange(join(dir, "target"), 2, 3), "cre");
  });

  s(
    "every read refuses a FIFO at once, never waiting for a writer (a transcript, a ledger, a settings file)",
    () => {
      const dir = fresh();
      const fifo = join(dir, "fifo.jsonl");
      new Deno.Command("mkfifo", { args: [fifo] }).outputSync();
      refused(() => host.readTail(fifo, 10), "EFTYPE");
      refused(() => host.readRange(fifo, 0, 10), "EFTYPE");
      refused(() => host.readText(fifo), "EFTYPE");
      refused(() => host.readChunks(fifo, 0, 10, () => {}), "EFTYPE");
      refused(() => host.appendLine(fifo, "x\n"), "EFTYPE");
    },
  );

  s("writeWhole never writes through a link at the temp name a pid made predictable", () => {
    const dir = fresh();
    const target = join(dir, "victim");
    writeFileSync(target, "V");
    const path = join(dir, "s.fold.json");
    symlinkSync(target, `${path}.${pid}.tmp`);
    host.writeWhole(path, "header");
    assert.is(readFileSync(path, "utf8"), "header");
    assert.is(readFileSync(target, "utf8"), "V");
    assert.equal(readdirSync(dir).sort(), ["s.fold.json", `s.fold.json.${pid}.tmp`, "victim"].sort());
  });

  s("writeWhole replaces a link at the path itself (the link, not its target)", () => {
    const dir = fresh();
    writeFileSync(join(dir, "victim"), "V");
    symlinkSync(join(dir, "victim"), join(dir, "s.fold.json"));
    host.writeWhole(join(dir, "s.fold.json"), "header");
    assert.is(readFileSync(join(dir, "victim"), "utf8"), "V");
    assert.is(readFileSync(join(dir, "s.fold.json"), "utf8"), "header");
  });

  s("writeWhole that fails leaves no temp file behind", () => {
    const dir = fresh();
    Deno.mkdirSync(join(dir, "s.fold.json"));
    writeFileSync(join(dir, "s.fold.json", "x"), "");
    assert.throws(() => host.writeWhole(join(dir, "s.fold.json"), "header"));
    assert.equal(readdirSync(dir), ["s.fold.json"]);
  });

  s("createNew refuses anything at the path, a dangling link included", () => {
    const dir = fresh();
    host.createNew(join(dir, "a.lock"), "t");
    refused(() => host.createNew(join(dir, "a.lock"), "u"), "EEXIST");
    symlinkSync(join(dir, "nowhere"), join(dir, "b.lock"));
    refused(() => host.createNew(join(dir, "b.lock"), "u"), "EEXIST");
    assert.not.ok(existsSync(join(dir, "nowhere")));
  });

  s(`readChunks hands over a range in order, stops when told, refuses a link`, () => {
    const dir = mkdtempSync(join(tmpdir(), "fiable-io-"));
    const file = join(dir, "ledger.jsonl");
    const data = Uint8Array.from({ length: io.READ_CHUNK * 2 + 100 }, (_, i) => (i * 2654435761) >>> 24);
    writeFileSync(file, data);
    const d = new Digest();
    const sizes: number[] = [];
    const read = host.readChunks(file, 50, data.length, (chunk) => {
      sizes.push(chunk.length);
      d.update(chunk);
    });
    assert.is(read, data.length - 50, "fewer at the file's end");
    assert.equal(sizes, [io.READ_CHUNK, io.READ_CHUNK, 50]);
    assert.is(d.finish(), digest(data.subarray(50)));
    let calls = 0;
    assert.is(host.readChunks(file, 0, data.length, () => ++calls < 2), io.READ_CHUNK * 2);
    assert.is(calls, 2, "stopped once each returned false");
    symlinkSync(file, join(dir, "link.jsonl"));
    assert.throws(() => host.readChunks(join(dir, "link.jsonl"), 0, 10, () => {}), /ELOOP|link/);
  });

  s.run();
}
