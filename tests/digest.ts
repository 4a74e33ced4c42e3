/** The checkpoints' digest (lib/guard/ledger/digest.ts): SHA-256, held to its published test vectors. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { Digest, digest } from "../lib/guard/ledger/digest.ts";

const s = suite("digest");
const bytes = (text: string) => new TextEncoder().encode(text);

/** FIPS 180-2's SHA-256 examples (appendix B) and the empty message. */
const PINNED: [string, string][] = [
  ["", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"],
  ["abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"],
  [
    "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
  ],
];

for (const [text, expected] of PINNED) {
  s(`digest of ${JSON.stringify(text)} is its published SHA-256`, () => {
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

s.run();
