/**
 * Id sets and maps restored from a checkpoint without hashing their strings (issue 20: a session's first event
 * ≤ 20 ms at 10k records). A checkpoint holds every id string once, in ascending order, and each set as
 * references into that table in insertion order. A lookup is a binary search of the table (the native string
 * comparison) and a flag per table entry, set in one pass over the set's references; what the fold adds later
 * goes to the collection's own storage. Building a real `Set` of 10k ids costs a cold process 2–6 ms, and a
 * first event reads four of them; the flags cost a fraction of a millisecond, and the table's order is
 * checked once, as the checkpoint is decoded.
 *
 * They are a `Set` and a `Map` to every reader: `has`, `get`, `add`, `set`, `delete`, `clear`, `size`, iteration
 * in insertion order (a deleted id added again iterates last, as in a `Set`), `forEach`. The set-algebra
 * methods (`union`, `isSubsetOf`, …) read the built-in storage only and are not used on evidence.
 *
 * Pure. `restoredSet` and `restoredMap` build a plain collection instead when the table is not in ascending
 * order or a set names an id twice (a spoiled checkpoint), so a lookup is never wrong.
 */

/** The order a checkpoint's id table is sorted in (UTF-16 code units, as `<` compares strings). */
export function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A checkpoint's id strings, searched in place when they ascend. */
export class IdTable {
  /** Whether each string is greater than the one before. */
  readonly ascending: boolean;
  /** Throws when an entry is not a string (a spoiled checkpoint: the caller reads the ledger instead). */
  constructor(readonly strings: readonly string[]) {
    let ascending = true;
    for (let i = 0; i < strings.length; i++) {
      if (typeof strings[i] !== "string") throw new Error("checkpoint id table holds a non-string");
      if (ascending && i > 0) ascending = strings[i - 1] < strings[i];
    }
    this.ascending = ascending;
  }
  /** The position of `id` in the table, or -1 (only meaningful when the table ascends). */
  find(id: string): number {
    const s = this.strings;
    let lo = 0, hi = s.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (s[mid] === id) return mid;
      if (s[mid] < id) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }
}

/** Each item of `items` through `f`, lazily (the restored collections' derived iterators). */
function* mapped<T, U>(items: Iterable<T>, f: (item: T) => U): Generator<U> {
  for (const item of items) yield f(item);
}

/** A checkpoint's set or map: references into the table (a map's key and value alternate), insertion order. */
export interface StoredList {
  table: IdTable;
  refs: Uint32Array;
}

/** A set of stored ids (a flag per table entry) and the ids added since (in the built-in storage). */
class RestoredSet extends Set<string> {
  #list: StoredList;
  #member: Uint8Array;
  #live: number;
  constructor(list: StoredList, member: Uint8Array) {
    super();
    this.#list = list;
    this.#member = member;
    this.#live = list.refs.length;
  }
  #stored(id: string): number {
    const k = this.#list.table.find(id);
    return k >= 0 && this.#member[k] ? k : -1;
  }
  override get size(): number {
    return super.size + this.#live;
  }
  override has(id: string): boolean {
    return super.has(id) || this.#stored(id) >= 0;
  }
  override add(id: string): this {
    if (!this.has(id)) super.add(id);
    return this;
  }
  override delete(id: string): boolean {
    if (super.delete(id)) return true;
    const k = this.#stored(id);
    if (k < 0) return false;
    this.#member[k] = 0;
    this.#live--;
    return true;
  }
  override clear(): void {
    super.clear();
    this.#member.fill(0);
    this.#live = 0;
  }
  override forEach(fn: (value: string, key: string, set: Set<string>) => void, thisArg?: unknown): void {
    for (const id of this.values()) fn.call(thisArg, id, id, this);
  }
  override values(): SetIterator<string> {
    return this.#ids() as SetIterator<string>;
  }
  override keys(): SetIterator<string> {
    return this.values();
  }
  override entries(): SetIterator<[string, string]> {
    return mapped(this.values(), (id): [string, string] => [id, id]) as SetIterator<[string, string]>;
  }
  override [Symbol.iterator](): SetIterator<string> {
    return this.values();
  }
  *#ids(): Generator<string> {
    const { refs, table } = this.#list;
    for (const k of refs) if (this.#member[k]) yield table.strings[k];
    yield* super.values();
  }
}

/** A map of stored id pairs (each key's value reference, -1 once deleted), the values set since, the pairs added. */
class RestoredMap extends Map<string, string> {
  #list: StoredList;
  #value: Int32Array;
  #changed = new Map<number, string>();
  #live: number;
  constructor(list: StoredList, value: Int32Array) {
    super();
    this.#list = list;
    this.#value = value;
    this.#live = list.refs.length / 2;
  }
  #stored(key: string): number {
    const k = this.#list.table.find(key);
    return k >= 0 && this.#value[k] >= 0 ? k : -1;
  }
  override get size(): number {
    return super.size + this.#live;
  }
  override get(key: string): string | undefined {
    if (super.has(key)) return super.get(key);
    const k = this.#stored(key);
    return k < 0 ? undefined : this.#changed.get(k) ?? this.#list.table.strings[this.#value[k]];
  }
  override has(key: string): boolean {
    return super.has(key) || this.#stored(key) >= 0;
  }
  override set(key: string, value: string): this {
    const k = super.has(key) ? -1 : this.#stored(key);
    if (k >= 0) this.#changed.set(k, value);
    else super.set(key, value);
    return this;
  }
  override delete(key: string): boolean {
    if (super.delete(key)) return true;
    const k = this.#stored(key);
    if (k < 0) return false;
    this.#value[k] = -1;
    this.#changed.delete(k);
    this.#live--;
    return true;
  }
  override clear(): void {
    super.clear();
    this.#value.fill(-1);
    this.#changed.clear();
    this.#live = 0;
  }
  override forEach(
    fn: (value: string, key: string, map: Map<string, string>) => void,
    thisArg?: unknown,
  ): void {
    for (const [k, v] of this.entries()) fn.call(thisArg, v, k, this);
  }
  override entries(): MapIterator<[string, string]> {
    return this.#pairs() as MapIterator<[string, string]>;
  }
  override keys(): MapIterator<string> {
    return mapped(this.entries(), ([k]) => k) as MapIterator<string>;
  }
  override values(): MapIterator<string> {
    return mapped(this.entries(), ([, v]) => v) as MapIterator<string>;
  }
  override [Symbol.iterator](): MapIterator<[string, string]> {
    return this.entries();
  }
  *#pairs(): Generator<[string, string]> {
    const { refs, table } = this.#list;
    for (let i = 0; i < refs.length; i += 2) {
      const k = refs[i];
      if (this.#value[k] >= 0) {
        yield [table.strings[k], this.#changed.get(k) ?? table.strings[this.#value[k]]];
      }
    }
    yield* super.entries();
  }
}

/** The stored set as a `Set`: searched in place when the table ascends and no id repeats, else built. */
export function restoredSet(list: StoredList): Set<string> {
  const { table, refs } = list;
  if (table.ascending) {
    const member = new Uint8Array(table.strings.length);
    let repeated = false;
    for (let i = 0; i < refs.length && !repeated; i++) {
      repeated = member[refs[i]] === 1;
      member[refs[i]] = 1;
    }
    if (!repeated) return new RestoredSet(list, member);
  }
  const out = new Set<string>();
  for (const k of refs) out.add(table.strings[k]);
  return out;
}

/** The stored pairs as a `Map`: searched in place when the table ascends and no key repeats, else built. */
export function restoredMap(list: StoredList): Map<string, string> {
  const { table, refs } = list;
  if (table.ascending) {
    const value = new Int32Array(table.strings.length).fill(-1);
    let repeated = false;
    for (let i = 0; i + 1 < refs.length && !repeated; i += 2) {
      repeated = value[refs[i]] >= 0;
      value[refs[i]] = refs[i + 1];
    }
    if (!repeated) return new RestoredMap(list, value);
  }
  const out = new Map<string, string>();
  for (let i = 0; i + 1 < refs.length; i += 2) out.set(table.strings[refs[i]], table.strings[refs[i + 1]]);
  return out;
}
