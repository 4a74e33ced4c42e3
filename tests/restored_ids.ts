/**
 * Restored id sets and maps (lib/guard/ledger/restored_ids.ts) behave as a `Set` and a `Map` of the same ids under
 * any sequence of adds, sets, deletes and clears: same answers, same size, same iteration order; a table out
 * of order or a repeated id gives a plain collection.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import {
  compareIds,
  IdTable,
  restoredMap,
  restoredSet,
  type StoredList,
} from "../lib/guard/ledger/restored_ids.ts";
import { prng as rngOf } from "../lib/results/stats.ts";

const s = suite("restored_ids");

/** A stored list of `keys` (and `values`, for a map) as a checkpoint writes it: a table in ascending order. */
function stored(keys: string[], values?: string[]): StoredList {
  const strings = [...new Set([...keys, ...(values ?? [])])].sort(compareIds);
  const ref = (x: string) => strings.indexOf(x);
  const refs = values ? keys.flatMap((k, i) => [ref(k), ref(values[i])]) : keys.map(ref);
  return { table: new IdTable(strings), refs: Uint32Array.from(refs) };
}

const IDS = [
  "CASE-1",
  "DOC-a",
  "DOC-b",
  "P2P-9",
  "",
  "é-id",
  "DOC-a ",
  "z",
  "Z",
  "\ud83d\ude00",
  "a\u0000b",
  "10",
  "9",
];

s("a restored set answers, sizes and iterates as the Set it was stored from, under random edits", () => {
  const rand = rngOf(7);
  const pick = () => IDS[Math.floor(rand() * IDS.length)];
  for (let trial = 0; trial < 300; trial++) {
    const initial = [...new Set(Array.from({ length: Math.floor(rand() * 10) }, pick))];
    const plain = new Set(initial);
    const restored = restoredSet(stored(initial));
    assert.ok(restored instanceof Set);
    for (let step = 0; step < 30; step++) {
      const id = pick();
      const op = rand();
      if (op < 0.4) assert.is(restored.add(id), restored);
      if (op < 0.4) plain.add(id);
      else if (op < 0.75) assert.is(restored.delete(id), plain.delete(id), `delete ${id}`);
      else if (op < 0.77) {
        restored.clear();
        plain.clear();
      }
      assert.is(restored.has(id), plain.has(id), `has ${JSON.stringify(id)} after op ${op}`);
      assert.is(restored.size, plain.size);
      assert.equal([...restored], [...plain]);
    }
    assert.equal([...new Set(restored)], [...plain], "new Set(restored) reads every id");
    assert.equal(Array.from(restored.entries()), Array.from(plain.entries()));
    const each: string[] = [];
    restored.forEach((v, k, set) => {
      assert.is(v, k);
      assert.is(set, restored);
      each.push(v);
    });
    assert.equal(each, [...plain.keys()]);
  }
});

s("a restored map gets, sets, sizes and iterates as the Map it was stored from, under random edits", () => {
  const rand = rngOf(11);
  const pick = () => IDS[Math.floor(rand() * IDS.length)];
  for (let trial = 0; trial < 300; trial++) {
    const plain = new Map<string, string>();
    for (let i = Math.floor(rand() * 10); i > 0; i--) plain.set(pick(), pick());
    const restored = restoredMap(stored([...plain.keys()], [...plain.values()]));
    assert.ok(restored instanceof Map);
    for (let step = 0; step < 30; step++) {
      const [k, v] = [pick(), pick()];
      const op = rand();
      if (op < 0.5) {
        restored.set(k, v);
        plain.set(k, v);
      } else if (op < 0.75) assert.is(restored.delete(k), plain.delete(k));
      else if (op < 0.77) {
        restored.clear();
        plain.clear();
      }
      assert.is(restored.get(k), plain.get(k), `get ${JSON.stringify(k)}`);
      assert.is(restored.has(k), plain.has(k));
      assert.is(restored.size, plain.size);
      assert.equal([...restored], [...plain]);
    }
    assert.equal([...restored.keys()], [...plain.keys()]);
    assert.equal([...restored.values()], [...plain.values()]);
    assert.equal([...new Map(restored)], [...plain]);
  }
});

s("a table out of order, or an id stored twice, gives a plain collection with the same ids", () => {
  const ids = ["DOC-b", "DOC-a", "CASE-1"];
  const good = stored(ids);
  assert.is(
    Object.getPrototypeOf(restoredSet(good)) === Set.prototype,
    false,
    "an ascending table is searched",
  );
  const reversed = [...good.table.strings].reverse();
  const spoilt: [string, StoredList][] = [
    ["a table out of order", {
      table: new IdTable(reversed),
      refs: Uint32Array.from(ids, (id) => reversed.indexOf(id)),
    }],
    ["a table with a string twice", {
      table: new IdTable(["CASE-1", "DOC-a", "DOC-a", "DOC-b"]),
      refs: Uint32Array.from([3, 1, 0]),
    }],
    ["an id stored twice", { table: good.table, refs: Uint32Array.from([...good.refs, good.refs[0]]) }],
  ];
  for (const [what, list] of spoilt) {
    const set = restoredSet(list);
    assert.is(Object.getPrototypeOf(set), Set.prototype, what);
    assert.equal([...set], ids, what);
    assert.ok(ids.every((id) => set.has(id)) && !set.has("DOC-c"), what);
  }
  assert.throws(() => new IdTable(["CASE-1", 7 as unknown as string]), /non-string/);
  const pairs = stored(["k2", "k1"], ["v2", "v1"]);
  const twice = restoredMap({
    ...pairs,
    refs: Uint32Array.from([...pairs.refs, ...pairs.refs.subarray(0, 2)]),
  });
  assert.is(Object.getPrototypeOf(twice), Map.prototype);
  assert.equal([...twice], [["k2", "v2"], ["k1", "v1"]]);
  const strings = [...pairs.table.strings].reverse();
  const outOfOrder = restoredMap({
    table: new IdTable(strings),
    refs: Uint32Array.from(["k2", "v2", "k1", "v1"], (x) => strings.indexOf(x)),
  });
  assert.is(Object.getPrototypeOf(outOfOrder), Map.prototype);
  assert.equal([...outOfOrder], [["k2", "v2"], ["k1", "v1"]]);
});

s("lookups in a 10k-id restored set find every stored id and no other", () => {
  const ids = Array.from({ length: 10_000 }, (_, i) => `DOC-${(i * 2654435761 % 2 ** 32).toString(16)}`);
  const set = restoredSet(stored(ids));
  assert.ok(ids.every((id) => set.has(id)));
  assert.ok(!set.has("DOC-") && !set.has(ids[0] + "0") && !set.has(""));
  assert.is(set.size, 10_000);
});

s.run();
