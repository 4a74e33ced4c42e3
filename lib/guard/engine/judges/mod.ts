/** Every decision-point judge of the critic panel, as an explicit list (static imports, so the bundle carries them). */
import type { Judge } from "../judge.ts";
import { judge as selfConsistency } from "./self_consistency.ts";
import { judge as p2pContract } from "./p2p_contract.ts";
import { judge as dispositionCheckpoint } from "./disposition_checkpoint.ts";

/** All decision-point judges in ID order, the checkpoints (`meta.checkpoint`, critic arm only) last. */
export const JUDGES: readonly Judge[] = [selfConsistency, p2pContract, dispositionCheckpoint] as Judge[];

/** The judge with this ID or name, if any. */
export function judgeOf(idOrName: string): Judge | undefined {
  return JUDGES.find((j) => j.meta.id === idOrName || j.meta.name === idOrName);
}

/** True when some judge votes at calls of this registered tool (the guard then reads the agent's recent text). */
export function isJudged(tool: string | null): boolean {
  return tool !== null && JUDGES.some((j) => j.meta.triggers.includes(tool));
}
