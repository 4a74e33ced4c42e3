/**
 * What replay predicts for the pilot, printed beside its price (`install experiments`, the experiments README,
 * run.sh before the pilot's first trial): from data/pilot_prediction.json (scripts/pilot_prediction.ts makes it
 * from the real packets), the closest packet's critic-arm replay of its provider trials — the failed trials its
 * blocks come in time for, and the passing trials that expected a submission its disposition checkpoint asks
 * in — and the provider gain the pilot's go rule detects with 80% power. One paragraph, every number with its
 * source. A replay is a shadow: it tells when a block would have come, not what the agent does after it.
 */

/** One packet's provider trials replayed in the critic arm (counts are trials). */
export interface PacketPrediction {
  id: string;
  agent: string;
  model: string;
  trials: number;
  passed: number;
  failed: number;
  not_observable: number;
  /** Failed trials every failed check of which a block came in time for (time-aware, replay's estimate). */
  rescue_in_time: { upper: number; strict: number };
  /** Passing trials whose task expected a submission, and those the disposition checkpoint asks in. */
  submit_expected_passed: number;
  checkpoint_touched: number;
}

/** The pilot's power with a number of attempts per task (scripts/power.ts, the go rule). */
export interface PilotPower {
  attempts: number;
  trials: number;
  /** The provider pass@1 gain detected with 80% power: uniform log-odds shift, rescue a share of failures. */
  mde_shift: number | null;
  mde_rescue: number | null;
  /** The chance of a go when the guard changes nothing. */
  false_go: number;
}

/** data/pilot_prediction.json. */
export interface PilotPrediction {
  generated_by: string;
  /** The Claude Code packets at hand, each replayed in the critic arm over its provider trials. */
  packets: PacketPrediction[];
  pilot: {
    /** Stock's provider pass@1 the power is computed at, and the packets it is the mean of. */
    baseline: number;
    baseline_packets: string[];
    /** scripts/power.ts's digest of what the power is computed from (tests/prediction.ts holds it current). */
    inputs: string;
    powers: PilotPower[];
  };
}

const pts = (x: number) => `+${(100 * x).toFixed(0)}`;

/** The packets the prediction rests on: the model's own Claude Code packet, else every Claude Code packet. */
export function closestPackets(
  p: PilotPrediction,
  model: string,
): { packets: PacketPrediction[]; why: string } {
  const own = p.packets.filter((x) => x.model === model && x.agent === "claude-code");
  if (own.length) return { packets: own, why: `the Claude Code packet of ${model} itself` };
  return {
    packets: p.packets.filter((x) => x.agent === "claude-code"),
    why:
      `no Claude Code packet of ${model} has its trials at hand, so the Claude Code packets whose trials ` +
      "are (actava-ai/leaderboard, read in ../shared when the file was made) stand in",
  };
}

function packetPhrase(x: PacketPrediction): string {
  const share = x.submit_expected_passed
    ? Math.round((100 * x.checkpoint_touched) / x.submit_expected_passed)
    : 0;
  return `${x.id} (${x.model}, ${x.trials} provider trials): in ${x.rescue_in_time.upper} of its ${x.failed} ` +
    `failed trials a block comes in time for every failed check (${x.rescue_in_time.strict} with no judge ` +
    `check failed), and the disposition checkpoint asks in ${x.checkpoint_touched} of its ` +
    `${x.submit_expected_passed} passing trials that expected a submission (${share}%)`;
}

/**
 * The prediction paragraph for a pilot of `attempts` attempts on `tasks` provider tasks (`trials` in all), from
 * the packets closest to `model`; `source` names the data file.
 */
export function predictionParagraph(
  p: PilotPrediction,
  plan: { model: string; attempts: number; trials: number },
  source = "data/pilot_prediction.json",
): string {
  const { packets, why } = closestPackets(p, plan.model);
  if (!packets.length) {
    return `What replay predicts for the pilot: nothing, because ${source} holds no Claude Code packet. ` +
      "Run `deno run -A scripts/pilot_prediction.ts` with the packets in ../shared.";
  }
  const gains = packets.map((x) => x.rescue_in_time.upper / x.trials);
  const low = Math.min(...gains), high = Math.max(...gains);
  const power = p.pilot.powers.find((x) => x.attempts === plan.attempts);
  const mdes = power ? [power.mde_shift, power.mde_rescue].filter((x): x is number => x !== null) : [];
  const detect = !power
    ? `its power with ${plan.attempts} attempts per task is not computed (scripts/power.ts has 1 and 2)`
    : mdes.length
    ? `the pilot (${plan.trials} trials) says go with 80% probability only when the full guard adds about ` +
      `${pts(Math.min(...mdes))}${
        mdes.length > 1 ? ` to ${pts(Math.max(...mdes))}` : ""
      } provider pass@1 points ` +
      `or more over stock's ${
        (100 * p.pilot.baseline).toFixed(1)
      }% (scripts/power.ts, protocol v3), and with ` +
      `${(100 * power.false_go).toFixed(1)}% when it changes nothing`
    : `the pilot (${plan.trials} trials) reaches 80% power at no gain scripts/power.ts tried`;
  return [
    `What replay predicts for the pilot (${source}, from \`deno run -A scripts/pilot_prediction.ts\`): ${why}, ` +
    `each replayed in the critic arm. ${packets.map(packetPhrase).join("; ")}.`,
    `Were every in-time block a rescue, that is ${pts(low)}${
      high > low ? ` to ${pts(high)}` : ""
    } provider ` +
    `pass@1 points at most; ${detect}.`,
    "A replay is a shadow: it tells when a block would have come, not what the agent does after it, and a " +
    "checkpoint question in a passing trial can cost that pass as well as save a failed one. Only the paid " +
    "pilot can show either.",
  ].join(" ");
}
