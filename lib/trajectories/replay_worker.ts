/** Replay worker: replays the trials the pool sends, one at a time, and posts each result back. */
import { type ReplayOptions, replayTrial } from "./replay.ts";
import type { TrialRef } from "../results/trials.ts";

interface Job {
  index: number;
  ref: TrialRef;
  opts: ReplayOptions;
}

const scope = globalThis as unknown as {
  onmessage: ((e: MessageEvent<Job>) => void) | null;
  postMessage(message: unknown): void;
};

scope.onmessage = (e: MessageEvent<Job>) => {
  const { index, ref, opts } = e.data;
  let result;
  try {
    result = replayTrial(ref, opts);
  } catch (err) {
    result = { dir: ref.dir, path: ref.dir, reason: `replay failed: ${(err as Error).message}` };
  }
  scope.postMessage({ index, result });
};
