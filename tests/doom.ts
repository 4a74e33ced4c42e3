/**
 * The doom model: an entry with a reason for every protected and every v1.0.0 deterministic check, calls
 * that exist in the tool catalog, the first executed dooming call as a table, and the verifier's behaviour
 * on the real packets where it can be seen (packet_absent).
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type DoomableCall, doomIndex, doomOf, DOOMS } from "../lib/trajectories/doom.ts";
import { RULES } from "../rules/mod.ts";
import { JUDGES } from "../lib/guard/engine/judges/mod.ts";
import { GATE_PROTECTS } from "../lib/guard/engine/closure.ts";
import { CHECKS } from "../rules/catalog/checks.ts";
import { TOOLS } from "../rules/catalog/tools.ts";
import { v1DeterministicChecks } from "../coverage.ts";
import { findTrials, packetOf, readScorecard } from "../lib/results/trials.ts";
import { packetName } from "../lib/trajectories/replay.ts";
import { readTrajectory, toolEvents } from "../lib/trajectories/atif.ts";

const s = suite("doom");

s("every check a rule, judge or the closure gate protects has an entry with a reason and a source", () => {
  const protectedChecks = new Set([
    ...RULES.flatMap((r) => r.meta.protects),
    ...JUDGES.flatMap((j) => j.meta.protects),
    ...Object.values(GATE_PROTECTS).flat(),
  ]);
  const missing = [...protectedChecks].filter((c) => !doomOf(c)?.why || !doomOf(c)?.sources.length);
  assert.equal(missing, [], `no doom entry or reason (lib/trajectories/doom.ts) for ${missing.join(", ")}`);
});

s("every deterministic check the v1.0.0 verifier emits has an entry", () => {
  const missing = v1DeterministicChecks(CHECKS).map((c) => c.id).filter((id) => !doomOf(id));
  assert.equal(missing, []);
});

s("one entry per check, and every dooming call is a mutating catalog tool with the fields it names", () => {
  const checks = DOOMS.map((d) => d.check);
  assert.equal(checks.length, new Set(checks).size);
  const tools = new Map(TOOLS.map((t) => [t.name, t]));
  for (const d of DOOMS) {
    for (const by of d.by) {
      const tool = tools.get(by.tool);
      assert.ok(tool && tool.effect !== "read", `${d.check}: ${by.tool} is not a mutating catalog tool`);
      for (const field of Object.keys(by.when ?? {})) {
        assert.ok(tool.args.includes(field), `${d.check}: ${by.tool} has no argument ${field}`);
      }
    }
    for (const c of d.withFailed ?? []) assert.ok(doomOf(c), `${d.check}: withFailed names ${c}, unknown`);
  }
});

const call = (
  tool: string,
  input: Record<string, unknown> = {},
  isError = false,
  text?: string,
): DoomableCall => ({ tool, input, isError, ...(text === undefined ? {} : { text }) });
const CREATE = call("cases.create_from_order");
const BUNDLE = call("docs.create_submission_bundle", { case_id: "CASE-ACT-001" });
const SUBMIT = call("auth.submit_authorization", { case_id: "CASE-ACT-001" });
const READ = call("cases.get_case", { case_id: "CASE-ACT-001" });
const FINALIZE = (final_action: string) => call("auth.finalize_provider_determination", { final_action });
const DETERMINE = call("determination.finalize", { decision: "approved" });
const DENY = call("determination.finalize", { decision: "denied", actor: "PAYER-CONTACT-004" });
/** A route_case result as the simulator returns it: the case, then its routing record. */
const routed = (lane: string, status: string, input: Record<string, unknown> = {}) =>
  call(
    "triage.route_case",
    { case_id: "CASE-ACT-001", ...input },
    false,
    JSON.stringify({
      case: { id: "CASE-ACT-001", status },
      routing_record: { id: "RTE-1a2b3c4d", recommended_target: lane },
    }),
  );

const ROWS: [string, string, DoomableCall[], string[], number | null][] = [
  ["packet_absent: the first bundle", "provider_pre_submission.packet_absent", [READ, BUNDLE, SUBMIT], [], 1],
  [
    "packet_absent: a submission without a bundle",
    "provider_pre_submission.packet_absent",
    [READ, SUBMIT],
    [],
    1,
  ],
  [
    "packet_absent: a bundle that failed is not executed",
    "provider_pre_submission.packet_absent",
    [
      call("docs.create_submission_bundle", {}, true),
      SUBMIT,
    ],
    [],
    1,
  ],
  [
    "final_action: submit_pa can still be revised",
    "provider_pre_submission.final_action",
    [
      FINALIZE("submit_pa"),
      BUNDLE,
      SUBMIT,
    ],
    [],
    2,
  ],
  [
    "final_action: do_not_submit closes the case",
    "provider_pre_submission.final_action",
    [
      FINALIZE("gather_more_evidence"),
      FINALIZE("do_not_submit"),
    ],
    [],
    1,
  ],
  [
    "referral codes: fixed by the first creation",
    "new_referral.site_of_service",
    [READ, CREATE, CREATE],
    [],
    1,
  ],
  ["one case per order: the second creation", "new_referral.case_created", [CREATE, READ, CREATE], [], 2],
  [
    "one case per order: a single creation leaves it to the stop",
    "new_referral.case_created",
    [CREATE],
    [],
    null,
  ],
  ["letters: a right decision leaves the letter to the stop", "outcome.letter_types", [DETERMINE], [], null],
  ["letters: a wrong decision fixes them", "outcome.letter_types", [DETERMINE], ["outcome.target_status"], 0],
  [
    "target status: a request_info pend",
    "outcome.target_status",
    [
      call("review.submit_md_case_decision", { decision: "request_info" }),
    ],
    [],
    0,
  ],
  [
    "target status: the MD's approve can still be overridden",
    "outcome.target_status",
    [
      call("review.submit_md_case_decision", { decision: "approve" }),
    ],
    [],
    null,
  ],
  [
    "a care plan's structure: saved again until the stop",
    "cm.care_plan.goal_structure",
    [
      call("cm_care_plan.finalize"),
    ],
    [],
    null,
  ],
  [
    "target status: a fast-track route the policy resolved finalizes the approval",
    "outcome.target_status",
    [READ, routed("notification_only_lane", "approved")],
    [],
    1,
  ],
  [
    "target status: a fast-track route named by override_target",
    "outcome.target_status",
    [routed("gold_card_lane", "approved", { override_target: "gold_card_lane" })],
    [],
    0,
  ],
  [
    "target status: a fast-track route whose result never came back",
    "outcome.target_status",
    [call("triage.route_case", { case_id: "CASE-ACT-001", override_target: "notification_only_lane" })],
    [],
    0,
  ],
  [
    "target status: the standard lane leaves the case to review",
    "outcome.target_status",
    [routed("standard_um", "under_review"), DETERMINE],
    [],
    1,
  ],
  [
    "target status: a fast-track route refused is not executed",
    "outcome.target_status",
    [call("triage.route_case", { override_target: "gold_card_lane" }, true, "Case is not routable")],
    [],
    null,
  ],
  [
    "clean determination: the fast-track route writes it",
    "outcome.clean_determination",
    [routed("gold_card_lane", "approved")],
    [],
    0,
  ],
  [
    "letters: a wrong fast-track approval fixes them",
    "outcome.letter_types",
    [routed("notification_only_lane", "approved")],
    ["outcome.target_status"],
    0,
  ],
  [
    "forbidden mutations: a submission bundle is not a counted mutation",
    "cross.forbidden_mutations",
    [BUNDLE, call("docs.upload_evidence_file", { case_id: "CASE-ACT-001" }), SUBMIT],
    [],
    2,
  ],
  [
    "forbidden mutations: upload_evidence writes a create_document row",
    "cross.forbidden_mutations",
    [BUNDLE, call("docs.upload_evidence", { case_id: "CASE-ACT-001" })],
    [],
    1,
  ],
  ["role compliance: an approval writes no denial", "md.role_compliance", [DETERMINE], [], null],
  [
    "role compliance: the finalized denial's review decision",
    "md.role_compliance",
    [call("review.submit_md_case_decision", { decision: "deny" }), DENY],
    [],
    1,
  ],
  ["a judge rubric: at the stop", "judge.md_review:final_decision", [DETERMINE], [], null],
  ["a check the model does not know: at the stop", "made.up", [DETERMINE], [], null],
];

for (const [name, check, calls, failed, at] of ROWS) {
  s(`doomIndex: ${name}`, () => assert.is(doomIndex(check, calls, failed), at));
}

const SOURCES = join(
  import.meta.dirname ?? ".",
  "..",
  "..",
  "shared",
  "sources",
  "chi-bench",
  "src",
  "chi_bench",
);

s("every source quoted at a line reads so at that line of chi-bench's source", () => {
  if (!existsSync(SOURCES)) throw new Error(`Cannot check the doom model's sources: ${SOURCES} is absent.`);
  const wrong: string[] = [];
  let quoted = 0;
  for (const d of DOOMS) {
    for (const source of d.sources) {
      const m = /src\/chi_bench\/(\S+):(\d+) “(.+)”$/.exec(source.ref);
      if (!m) continue;
      quoted++;
      const text = readFileSync(join(SOURCES, m[1]), "utf8").split("\n")[Number(m[2]) - 1] ?? "";
      if (!text.includes(m[3])) {
        wrong.push(`${d.check}: ${m[1]}:${m[2]} reads ${JSON.stringify(text.trim())}`);
      }
    }
  }
  assert.equal(wrong, []);
  assert.ok(quoted >= 10, `only ${quoted} sources quote a line`);
});

s("the fast-track route, a counted mutation and a finalized denial each cite the line that says so", () => {
  const cites = (check: string, path: string) =>
    doomOf(check)!.sources.some((src) => new RegExp(`${path}:\\d+ “`).test(src.ref));
  assert.ok(cites("outcome.target_status", "core/context.py"));
  assert.ok(cites("cross.forbidden_mutations", "verifier/stages/cross_stage.py"));
  assert.ok(cites("md.role_compliance", "verifier/stages/md_review.py"));
});

const ROOTS = ["leaderboard", "leaderboard-extra"].map((p) =>
  join(import.meta.dirname ?? ".", "..", "..", "shared", p)
);

s(
  "the real packets: where the target case resolved, a trial that bundled or submitted failed packet_absent, and every failure did",
  () => {
    const roots = ROOTS.filter(existsSync);
    if (!roots.length) throw new Error(`Cannot check the doom model: ${ROOTS.join(" and ")} are absent.`);
    const check = "provider_pre_submission.packet_absent";
    const contradictions: string[] = [];
    let doomed = 0;
    for (const ref of findTrials(roots)) {
      if (ref.domain !== "pa_provider" || !ref.scorecard || !ref.trajectory) continue;
      const card = readScorecard(ref.scorecard).checks;
      const verdict = card.find((c) => c.id === check)?.passed;
      if (typeof verdict !== "boolean") continue;
      // An unresolved target case makes packet_absent pass vacuously (no case to hold a packet).
      if (card.find((c) => c.id === "new_referral.service_request_created")?.passed === false) continue;
      const calls = toolEvents(readTrajectory(ref.trajectory)).calls.filter((c) => c.tool);
      const at = doomIndex(check, calls, []);
      if (at !== null) doomed++;
      if ((at !== null) === verdict) {
        contradictions.push(
          `${packetName(packetOf(ref, roots))}/${ref.name}: ${verdict ? "passed" : "failed"}`,
        );
      }
    }
    assert.equal(contradictions, []);
    assert.ok(doomed >= 80, `only ${doomed} trials bundled`);
  },
);

s.run();
