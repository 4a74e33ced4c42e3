/** The checkpoints' digest (lib/guard/ledger/digest.ts) and the chunked reads that feed it (`Host.readChunks`). */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Digest, digest } from "../lib/guard/ledger/digest.ts";
import { READ_CHUNK } from "../lib/guard/runtime/host_api.ts";
import { denoHost } from "../lib/guard/runtime/host_deno.ts";
import { nodeHost } from "../lib/guard/runtime/host_node.ts";

const s = suite("digest");
const bytes = (text: string) => new TextEncoder().encode(text);

/**
 * Pinned values: a checkpoint written by any runtime, on any byte order, must be read by every other, so the
 * algorithm may never drift (a change here is a new `HASH` name in lib/guard/ledger/checkpoint.ts).
 */
const PINNED: [string, string][] = [
  ["", "c4779047c148ac86"],
  ["a", "0a0a32ec23263a29"],
  ["abc", "17f3754adf02f433"],
  ["fiable-agent checkpoint digest, 48 bytes long..", "f97ecd04fee73865"],
];

for (const [text, expected] of PINNED) {
  s(`digest of ${JSON.stringify(text)} is pinned`, () => {
    assert.is(digest(bytes(text)), expected);
  });
}

s("a digest in parts is the digest of the whole, wherever the parts are cut", () => {
  const whole = crypto.getRandomValues(new Uint8Array(1000));
  for (const cut of [1, 3, 4, 7, 15, 16, 17, 64, 999]) {
    const d = new Digest();
    for (let i = 0; i < whole.length; i += cut) d.update(whole.subarray(i, i + cut));
    assert.is(d.finish(), digest(whole), `parts of ${cut}`);
  }
  // An unaligned view (a ledger span starts anywhere) digests as its copy does.
  assert.is(digest(whole.subarray(3, 803)), digest(whole.slice(3, 803)));
});

s("one changed byte changes the digest", () => {
  const whole = crypto.getRandomValues(new Uint8Array(4096));
  const before = digest(whole);
  for (const at of [0, 1, 2047, 4093, 4095]) {
    const spoiled = whole.slice();
    spoiled[at] ^= 1;
    assert.is.not(digest(spoiled), before, `byte ${at}`);
  }
  assert.is.not(digest(whole.subarray(0, 4095)), before, "a byte cut off");
});

for (const [name, host] of [["deno", denoHost()], ["node", nodeHost()]] as const) {
  s(`${name} host: readChunks hands over a range in order, stops when told, refuses a link`, () => {
    const dir = mkdtempSync(join(tmpdir(), "fiable-digest-"));
    const file = join(dir, "ledger.jsonl");
    const data = Uint8Array.from({ length: READ_CHUNK * 2 + 100 }, (_, i) => (i * 2654435761) >>> 24);
    writeFileSync(file, data);
    const d = new Digest();
    const sizes: number[] = [];
    const read = host.readChunks(file, 50, data.length, (chunk) => {
      sizes.push(chunk.length);
      d.update(chunk);
    });
    assert.is(read, data.length - 50, "fewer at the file's end");
    assert.equal(sizes, [READ_CHUNK, READ_CHUNK, 50]);
    assert.is(d.finish(), digest(data.subarray(50)));
    let calls = 0;
    assert.is(host.readChunks(file, 0, data.length, () => ++calls < 2), READ_CHUNK * 2);
    assert.is(calls, 2, "stopped once each returned false");
    symlinkSync(file, join(dir, "link.jsonl"));
    assert.throws(() => host.readChunks(join(dir, "link.jsonl"), 0, 10, () => {}), /ELOOP|link/);
  });
}

s.run();
