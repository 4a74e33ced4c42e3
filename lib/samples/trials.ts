/**
 * Built-in sample trials: synthetic χ-Bench trial dirs for every seat, written exactly as Harbor writes real
 * ones (config.json, result.json, verifier/scorecard.json, verifier/reward.json, agent/trajectory.json in ATIF
 * v1.7), so replay, aggregate, verify and the dashboard read them like real trials. Two arms of the fiable-cc
 * harness: `stock` (no guard) and `checklist`, whose trials were driven through the real guard engine while
 * they were generated — a denied call comes back to the agent as an error result carrying the reason, the
 * agent makes the fix and retries, and its live ledger and harness.json sit in `agent/fiable/` as in a real
 * guarded trial. Deterministic for a given seed.
 */
import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { decide, DEFAULT_BOUNDS, type GuardEvent } from "../guard/engine/decide.ts";
import type { Arm, LedgerRecord } from "../guard/engine/record.ts";
import { CHECKS } from "../../rules/catalog/checks.ts";
import { prng as rngOf } from "../results/stats.ts";

/** One tool call the scripted agent makes: registered tool name, arguments, and what the simulator answers. */
export interface Move {
  tool: string;
  input: Record<string, unknown>;
  result?: unknown;
  error?: string;
  /** Calls the agent makes when the guard denies this one, before retrying it (omitted: it drops the call). */
  fix?: Move[];
  /** Checks this call breaks when it goes through as first made (not after a fix). */
  breaks?: string[];
}

/** A scripted trial: the prompt, the calls, the calls the agent makes when the stop gate holds it back. */
export interface Script {
  prompt: string;
  moves: Move[];
  /** Calls missing at the end (a stop slip) and the checks that fail while they are missing. */
  closing?: { moves: Move[]; breaks: string[] };
  /** Checks failed by judgement, which no guard can repair. */
  judged?: string[];
}

/** A sample task: name, domain and its script for a variant. */
interface Task {
  name: string;
  domain: "pa_provider" | "pa_um" | "cm";
  title: string;
  script(variant: Variant, rng: Rng): Script;
}

/** What happens in one trial: a clean run, the task's slip, or a judgement miss. */
export type Variant = "clean" | "slip" | "judgement";

/** One generated trial, in memory. */
export interface SampleTrial {
  arm: Arm;
  domain: string;
  trialName: string;
  result: Record<string, unknown>;
  scorecard: Record<string, unknown>;
  reward: { reward: number };
  trajectory: Record<string, unknown>;
  ledger: LedgerRecord[];
  /** Harbor's trial config (config.json): the harness and its agent kwarg `arm`. */
  config: Record<string, unknown>;
  /** What fiable-cc writes to agent/fiable/harness.json; null for stock, which writes nothing. */
  harness: { arm: Arm; hooks: "http" | "command"; port: number } | null;
}

/** Generator options. */
export interface SampleOptions {
  seed?: number;
  attempts?: number;
  arms?: Arm[];
}

type Rng = () => number;

function hex(rng: Rng, n: number, upper = false): string {
  let s = "";
  for (let i = 0; i < n; i++) s += Math.floor(rng() * 16).toString(16);
  return upper ? s.toUpperCase() : s;
}

function shortId(rng: Rng): string {
  const abc = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
  let s = "";
  for (let i = 0; i < 7; i++) s += abc[Math.floor(rng() * abc.length)];
  return s;
}

function mv(tool: string, input: Record<string, unknown>, result: unknown, extra: Partial<Move> = {}): Move {
  return { tool, input, result, ...extra };
}

const PROVIDER_NS = "`chart`, `cases`, `inbox`, `docs`, `forms`, `auth`, `people`, `p2p_session`";
const PAYER_NS =
  "`payer_intake_hub`, `triage`, `review`, `determination`, `p2p`, `p2p_session`, `payer_letter_center`";
const CM_NS = "`cm_intake`, `cm_chart`, `cm_outreach`, `cm_assessment`, `cm_care_plan`";

function prompt(
  title: string,
  body: string,
  seat: "provider" | "payer" | "care-manager",
  ns: string,
): string {
  const data = seat === "payer" ? "Case data & payer tools" : `Patient data & ${seat} tools`;
  return [
    `# ${title}`,
    "",
    body,
    "",
    "## 🧰 Workspace",
    "",
    "| Resource | Location |",
    "|----------|----------|",
    `| ${data} | \`healthverse\` MCP server |`,
    "| Handbook | `/workspace/skills/managed-care-operations-handbook/SKILL.md` |",
    `| Working files | \`/logs/artifacts/workspaces/<case-id>/${seat}/\` |`,
    "",
    "## 📋 Rules",
    "",
    `- Use only ${seat} namespaces: ${ns}`,
    "- Do not inspect simulator source, tests, solution, or expectations files",
    "- Do not fabricate source evidence — only create agent-authored summaries or correspondence when your workflow requires it",
  ].join("\n");
}

function providerTask(name: string, procedure: string, cpt: string, icd: string): Task {
  return {
    name,
    domain: "pa_provider",
    title: `📋 Clinical Intake — ${procedure}`,
    script(variant, rng) {
      const patient = `PAT-${hex(rng, 12)}`;
      const prac = `PRAC-${hex(rng, 12)}`;
      const caseId = "CASE-ACT-001";
      const doc = `DOC-${hex(rng, 8)}`;
      const bundle = `DOC-BUNDLE-${hex(rng, 8)}`;
      const finalize = mv("auth.finalize_provider_determination", {
        case_id: caseId,
        final_action: "submit_pa",
        bundle_document_id: bundle,
      }, { determination: { id: `PDET-${hex(rng, 8)}`, case_id: caseId, final_action: "submit_pa" } });
      const submit = mv("auth.submit_authorization", {
        case_id: caseId,
        channel: "portal",
        bundle_document_id: bundle,
      }, {
        case: { id: caseId, status: "submitted" },
        intake_case: { id: `intake-${hex(rng, 8)}`, case_id: caseId },
      });
      const moves: Move[] = [
        mv("chart.search_patients", { query: "knee pain referral" }, {
          result: [{ patient_id: patient, name: "Dana Whitfield", dob: "1968-04-12" }],
        }),
        mv("chart.get_patient_chart_by_patient", { patient_id: patient }, {
          patient: { id: patient, name: "Dana Whitfield" },
          conditions: [{ code: icd, display: procedure + " indication" }],
          orders: [{ id: "SR-001", procedure_code: cpt, status: "active" }],
        }),
        mv("people.list_ordering_providers", {}, {
          result: [{ id: prac, name: "Maya Ortiz, MD", npi: "1487650392" }],
        }),
        mv("cases.create_from_order", {
          patient_id: patient,
          ordering_practitioner_id: prac,
          source_order_id: "SR-001",
          procedure_code: cpt,
          diagnosis_codes: [icd],
        }, {
          case: {
            id: caseId,
            external_case_id: "PA-ACT-001",
            patient_id: patient,
            service_request_id: "SR-001",
            status: "draft",
          },
          next_actions: ["complete_service_request", "check_requirement"],
        }),
        mv("forms.list_required_forms", { case_id: caseId }, {
          forms: [{ form_id: `FORM-REQUEST-${caseId}` }, {
            form_id: `FORM-POLICY-${caseId}-QUESTIONNAIRE-01`,
          }],
        }),
        mv("forms.save_form_response", {
          case_id: caseId,
          form_id: `FORM-POLICY-${caseId}-QUESTIONNAIRE-01`,
          answers: { conservative_therapy_weeks: 8, imaging_prior: "x-ray 2026-03-02" },
        }, { response_id: `QRESP-${hex(rng, 8)}`, case_id: caseId }),
        mv("docs.upload_evidence", {
          case_id: caseId,
          kind: "clinical_notes",
          title: "PT notes, 8 weeks",
          content: "Eight weeks of physical therapy without improvement; persistent effusion.",
        }, { document: { id: doc, case_id: caseId, kind: "clinical_notes" } }),
        mv("docs.create_submission_bundle", { case_id: caseId, document_ids: [doc] }, {
          bundle: { id: bundle, case_id: caseId },
          case: { id: caseId, status: "ready_to_submit" },
        }),
      ];
      const taskPrompt = prompt(
        this.title,
        `Prepare the prior authorization for ${procedure}.`,
        "provider",
        PROVIDER_NS,
      );
      if (variant === "slip" && rng() < 0.5) {
        return {
          prompt: taskPrompt,
          moves: [
            ...moves,
            {
              ...submit,
              fix: [finalize],
              breaks: ["provider_pre_submission.provider_determination_present"],
            },
          ],
        };
      }
      if (variant === "slip") {
        return {
          prompt: taskPrompt,
          moves,
          closing: {
            moves: [finalize, submit],
            breaks: ["provider_pre_submission.provider_determination_present", "new_referral.case_status"],
          },
        };
      }
      return {
        prompt: taskPrompt,
        moves: [
          ...moves,
          finalize,
          submit,
          mv("auth.check_status", { case_id: caseId }, { status: "submitted" }),
        ],
        judged: variant === "judgement" ? ["new_referral.procedure_code"] : undefined,
      };
    },
  };
}

function payerTask(name: string, phase: "mdreview" | "p2p", procedure: string): Task {
  const title = phase === "mdreview"
    ? `⚕️ MD Review — ${procedure}`
    : `📞 Peer-to-Peer Session — ${procedure}`;
  return {
    name,
    domain: "pa_um",
    title,
    script(variant, rng) {
      const caseId = `CASE-${hex(rng, 8, true)}`;
      const other = `CASE-${hex(rng, 8, true)}`;
      const intake = `INTAKE-${hex(rng, 8, true)}`;
      const p2pId = `P2P-${hex(rng, 8)}`;
      const letter = `LET-${hex(rng, 8)}`;
      const decision = phase === "p2p" ? "approve" : "deny";
      const final = decision === "approve" ? "approved" : "denied";
      const queue = mv("payer_intake_hub.list_intake_queue", {}, {
        result: [
          { case_id: caseId, intake_case_id: intake, service: procedure, stage: "md_review" },
          { case_id: other, service: "Lumbar fusion", stage: "md_review" },
        ],
      });
      const letters = [
        mv(
          `payer_letter_center.generate_${decision === "approve" ? "approval" : "denial"}`,
          {
            case_id: caseId,
            actor: "md_reviewer",
            body: `Determination for ${procedure}: ${final}.`,
            supporting_basis: "Criteria 2.1 and 3.4 of the medical policy",
            ...(decision === "deny" ? { appeal_information: "You may appeal within 180 days." } : {}),
          },
          { letter: { id: letter, case_id: caseId, status: "composed" } },
        ),
        mv("payer_letter_center.audit_completeness", { letter_id: letter }, {
          complete: true,
          letter_id: letter,
        }),
        mv("payer_letter_center.deliver", { letter_id: letter, channel: "portal" }, {
          letter: { id: letter, case_id: caseId, status: "delivered" },
        }),
      ];
      const finalize = mv("determination.finalize", {
        case_id: caseId,
        decision: final,
        overridden: false,
        actor: "md_reviewer",
      }, {
        determination: { id: `DET-${hex(rng, 8)}`, case_id: caseId, final_decision: final },
        case: { id: caseId, status: final, authorization_number: `AUTH-${caseId}-${hex(rng, 6, true)}` },
      });
      const body = phase === "mdreview"
        ? `Escalated to you for MD decision on ${procedure}. Record the MD decision and finalize the determination yourself.`
        : `Run the peer-to-peer for ${procedure} with the requesting provider, then finalize the determination yourself.`;
      const head: Move[] = [
        queue,
        mv("review.get_md_review_data", { case_id: caseId }, {
          case: { id: caseId, intake_case_id: intake, status: "under_review" },
          criteria: [{ id: "2.1", met: false }, { id: "3.4", met: true }],
        }),
      ];
      let moves: Move[];
      if (phase === "mdreview") {
        moves = [
          ...head,
          mv("review.save_md_review", {
            case_id: caseId,
            line_number: 1,
            evaluations: [{ criterion: "2.1", met: false }],
          }, { review: { id: `MDR-${hex(rng, 8)}`, case_id: caseId } }),
          mv("review.submit_md_case_decision", {
            case_id: caseId,
            decision: "deny",
            denial_rationale: "Criterion 2.1 (six months of supervised weight management) is not documented.",
            determination_rationale:
              "Denied under policy criterion 2.1: the record shows no supervised weight-management " +
              "program in the last six months; criterion 3.4 (BMI ≥ 40) is met.",
            clinical_notes: "Reviewed the nurse review, the BMI history and the referral letter.",
            signed_off: true,
          }, { case_decision: { id: `MCD-${hex(rng, 8)}`, case_id: caseId, decision: "deny" } }),
          finalize,
        ];
      } else {
        const schedule = [
          mv("p2p.offer_slots", {
            request_id: p2pId,
            payer_contact_id: "PAYER-CONTACT-001",
            slots: ["2026-07-02T15:00:00Z"],
          }, { p2p_request: { id: p2pId, case_id: caseId, status: "slot_selected" } }),
          mv("p2p.schedule", {
            request_id: p2pId,
            payer_contact_id: "PAYER-CONTACT-001",
            scheduled_at: "2026-07-02T15:00:00Z",
          }, { p2p_request: { id: p2pId, case_id: caseId, status: "event_open" } }),
        ];
        const outcome = mv("p2p.record_outcome", {
          request_id: p2pId,
          payer_contact_id: "PAYER-CONTACT-001",
          outcome: "overturn_to_approval",
          note: "Provider documented the failed conservative therapy; criterion 2.1 met.",
        }, { p2p_request: { id: p2pId, case_id: caseId, status: "completed" } });
        const listed = mv("p2p.list", { case_id: caseId }, {
          result: [{
            id: p2pId,
            case_id: caseId,
            status: "requested",
            payer_contact_id: "PAYER-CONTACT-001",
          }],
        });
        moves = variant === "slip"
          ? [...head, listed, {
            ...outcome,
            fix: schedule,
            breaks: ["p2p.event_opened", "outcome.p2p_scheduled"],
          }]
          : [...head, listed, ...schedule, outcome];
        moves.push(finalize);
      }
      if (variant === "slip" && phase === "mdreview") {
        return {
          prompt: prompt(title, body, "payer", PAYER_NS),
          moves,
          closing: { moves: letters, breaks: ["outcome.letter_types", "outcome.letter_has_appeal_info"] },
        };
      }
      return {
        prompt: prompt(title, body, "payer", PAYER_NS),
        moves: [...moves, ...letters],
        judged: variant === "judgement"
          ? [phase === "mdreview" ? "md.decision_matches" : "judge.p2p:summary_fidelity"]
          : undefined,
      };
    },
  };
}

function cmTask(key: string, condition: string): Task {
  const name = key.toLowerCase();
  return {
    name,
    domain: "cm",
    title: `🤝 ${condition} — Care Management (Intake) Handoff`,
    script(variant, rng) {
      const ref = `REF-${key}`;
      const caseId = `CM-CASE-${key}`;
      const ses = `SES-${hex(rng, 8, true)}`;
      const goal = (text: string, measure: string) => ({
        description: text,
        target_date: "2026-09-30",
        measurable_criteria: measure,
        interventions: [{ description: "Weekly check-in call", owner: "care manager", frequency: "weekly" }],
      });
      const plan = {
        problems: [
          {
            problem_id: "P1",
            statement: `${condition} not controlled`,
            goals: [goal("Daily medication use", "30-day pill count ≥ 90%")],
          },
          {
            problem_id: "P2",
            statement: "Anxiety about symptoms",
            goals: [goal("Knows when to call", "teach-back passed")],
          },
        ],
      };
      const full = {
        ...plan,
        escalation_conditions: ["chest pain or HR > 120 → call PCP same day"],
        follow_up_cadence_kind: "weekly",
      };
      const moves: Move[] = [
        mv("cm_intake.list_referral_queue", {}, {
          result: [{ referral_id: ref, program: "chronic_disease" }, {
            referral_id: "REF-CM_DISTRACTOR_017",
          }],
        }),
        mv("cm_intake.get_referral", { referral_id: ref }, {
          referral_id: ref,
          case_id: caseId,
          patient_id: `CM-PAT-${key}`,
          condition,
        }),
        mv("cm_intake.open_case", { referral_id: ref, priority: "moderate", program: "chronic_disease" }, {
          case_id: caseId,
          patient_id: `CM-PAT-${key}`,
          status: "intake_complete",
        }),
        mv("cm_chart.get_chart_data", { case_id: caseId }, {
          case_id: caseId,
          documents: [`DOC-${key}-001`],
          medications: ["apixaban 5 mg"],
        }),
        mv("cm_chart.submit_chart_review", {
          case_id: caseId,
          review: { summary: `${condition}, two ED visits` },
        }, {
          record: { id: `CMR-${hex(rng, 8, true)}`, case_id: caseId },
          status: "chart_reviewed",
        }),
        mv("cm_outreach.start_outreach_call", { case_id: caseId }, {
          session_id: ses,
          case_id: caseId,
          status: "active",
        }),
        mv("cm_outreach.send_message", {
          session_id: ses,
          message: "Hello, I'm your care manager. Is now a good time to talk about your care?",
        }, { reply: "Yes, I have a few minutes." }),
        mv(
          "cm_outreach.end_outreach_call",
          { session_id: ses, summary: "Consent obtained; concerns noted." },
          {
            session_id: ses,
            case_id: caseId,
            status: "ended",
          },
        ),
        mv("cm_assessment.start_assessment", { case_id: caseId }, {
          assessment: { id: `ASSESS-${hex(rng, 8, true)}`, case_id: caseId },
        }),
        ...["clinical", "medication", "behavioral_health", "sdoh"].map((section) =>
          mv("cm_assessment.save_section", { case_id: caseId, payload: { section, notes: "reviewed" } }, {
            case_id: caseId,
            section,
          })
        ),
        mv("cm_assessment.complete_assessment", { case_id: caseId }, { case_id: caseId, status: "complete" }),
        mv("cm_care_plan.create_draft", { case_id: caseId }, {
          care_plan: { id: `CP-${hex(rng, 8, true)}`, case_id: caseId },
        }),
      ];
      const finalize = mv("cm_care_plan.finalize", { case_id: caseId }, {
        case_id: caseId,
        status: "closed",
      });
      const saveFull = mv("cm_care_plan.save_care_plan", { case_id: caseId, plan_data: full }, {
        case_id: caseId,
      });
      const cmPrompt = prompt(this.title, `Work the ${condition} referral.`, "care-manager", CM_NS);
      if (variant === "slip" && rng() < 0.5) {
        return {
          prompt: cmPrompt,
          moves: [
            ...moves,
            mv("cm_care_plan.save_care_plan", { case_id: caseId, plan_data: plan }, { case_id: caseId }),
            {
              ...finalize,
              fix: [saveFull],
              breaks: [
                "cm.care_plan.escalation_conditions_present",
                "cm.care_plan.follow_up_cadence_present",
              ],
            },
          ],
        };
      }
      if (variant === "slip") {
        const stray = mv(
          "cm_chart.submit_chart_review",
          {
            case_id: "CM-CASE-CM_DISTRACTOR_017",
            review: { summary: "reviewed" },
          },
          { status: "chart_reviewed", case_id: "CM-CASE-CM_DISTRACTOR_017" },
          {
            breaks: ["cm.cross_stage.no_forbidden_mutations"],
          },
        );
        return {
          prompt: cmPrompt,
          moves: [...moves, stray, saveFull, finalize],
        };
      }
      return {
        prompt: cmPrompt,
        moves: [...moves, saveFull, finalize],
        judged: variant === "judgement" ? ["judge.cm.outreach.quality"] : undefined,
      };
    },
  };
}

/** The sample tasks: every seat, realistic task names (the packets' naming) and identifiers. */
export const TASKS: readonly Task[] = [
  providerTask(
    "pa_t008_t008_o002_p01_new_referral_provider",
    "MRI knee without contrast",
    "73721",
    "M23.221",
  ),
  providerTask(
    "pa_t011_t011_o003_p01_new_referral_provider",
    "Lumbar epidural steroid injection",
    "62323",
    "M54.16",
  ),
  providerTask("pa_t013_t013_o002_p01_new_referral_provider", "Sleep study, attended", "95810", "G47.33"),
  payerTask("pa_t008_t008_o002_p01_mdreview_payer", "mdreview", "Laparoscopic sleeve gastrectomy"),
  payerTask("pa_t017_t017_o001_p01_mdreview_payer", "mdreview", "Total knee arthroplasty"),
  payerTask("pa_t016_t016_o001_p01_p2p_payer", "p2p", "Spinal cord stimulator trial"),
  cmTask("CM_AFIB_MODERATE_ANXIOUS_001", "Atrial fibrillation"),
  cmTask("CM_ASTHMA_LOW_COOP_001", "Asthma"),
  cmTask("CM_CKD_MODERATE_ANXIOUS_001", "Chronic kidney disease"),
];

/** The verifier checks a sample scorecard reports for a domain: the catalog's concrete IDs for it. */
export function checksFor(domain: string): string[] {
  return CHECKS.filter((c) => c.domains.includes(domain) && !/[<>]/.test(c.id)).map((c) => c.id).slice(0, 24);
}

function stageOf(check: string): string {
  return CHECKS.find((c) => c.id === check)?.stage ?? check.split(/[.:]/)[0];
}

/** A scorecard in the verifier's shape: every listed check true except the failed ones. */
export function scorecardOf(domain: string, failed: string[]): Record<string, unknown> {
  const ids = [...new Set([...checksFor(domain), ...failed])];
  const checks: Record<string, boolean> = {};
  for (const id of ids) checks[id] = !failed.includes(id);
  const stages: Record<string, unknown> = {};
  for (const id of ids) {
    const stage = stageOf(id);
    const s = (stages[stage] ??= {
      passed: true,
      checks: {},
      passed_count: 0,
      total_count: 0,
      not_applicable_count: 0,
    }) as {
      passed: boolean;
      checks: Record<string, boolean>;
      passed_count: number;
      total_count: number;
    };
    s.checks[id] = checks[id];
    s.total_count++;
    if (checks[id]) s.passed_count++;
    else s.passed = false;
  }
  const passed = ids.length - failed.length;
  return {
    binary_reward: failed.length ? 0.0 : 1.0,
    fractional_reward: passed / ids.length,
    passed_checks: passed,
    total_checks: ids.length,
    check_scores: Object.fromEntries(ids.map((id) => [id, checks[id] ? 1.0 : 0.0])),
    checks,
    failed_checks: failed,
    not_applicable_checks: [],
    stages,
  };
}

/** The MCP name Claude Code shows for a registered tool. */
function mcpName(tool: string): string {
  return `mcp__healthverse__${tool.replace(".", "_")}`;
}

/** Runs one script as an agent would, through the guard engine when the arm guards, and records it all. */
export function runScript(
  script: Script,
  opts: { arm: Arm; session: string; start: number; rng: Rng; model?: string },
): { steps: Record<string, unknown>[]; ledger: LedgerRecord[]; failed: string[]; cost: number; end: number } {
  const { arm, session, rng } = opts;
  const model = opts.model ?? "claude-opus-5";
  const guarded = arm !== "stock";
  const ledger: LedgerRecord[] = [];
  const steps: Record<string, unknown>[] = [];
  let clock = opts.start;
  let cost = 0;
  let callNo = 0;
  const failed = new Set<string>();
  const stamp = () => new Date(clock).toISOString();
  const engine = (event: GuardEvent) => {
    if (!guarded) return null;
    const out = decide(event, ledger, { arm, bounds: DEFAULT_BOUNDS }, stamp());
    if (out.record) ledger.push({ ...out.record, latency_ms: Math.round(rng() * 30 + 4) / 10 });
    return out;
  };
  const userStep = (message: string) => {
    steps.push({ step_id: steps.length + 1, timestamp: stamp(), source: "user", message });
  };
  userStep(script.prompt);
  engine({ word: "session-start", session, source: "startup" });
  engine({ word: "prompt", session, prompt: script.prompt });

  const call = (m: Move, retry = false): boolean => {
    clock += 2000 + Math.floor(rng() * 9000);
    const id = `toolu_01${hex(rng, 22)}`;
    callNo++;
    const metrics = {
      prompt_tokens: 30000 + callNo * 1800,
      completion_tokens: 120 + Math.floor(rng() * 400),
      cached_tokens: 28000 + callNo * 1700,
      cost_usd: 0,
      extra: { cache_creation_input_tokens: 1200, cache_read_input_tokens: 28000 + callNo * 1700 },
    };
    metrics.cost_usd = Math.round(
      ((metrics.prompt_tokens - metrics.cached_tokens) * 5 + metrics.completion_tokens * 25 +
        metrics.cached_tokens * 0.5) /
        1e3,
    ) / 1e3;
    cost += metrics.cost_usd;
    const pre = engine({ word: "pre", session, tool: mcpName(m.tool), input: m.input, toolUseId: id });
    const reply = pre?.reply as {
      hookSpecificOutput?: { permissionDecision?: string; permissionDecisionReason?: string };
    };
    const denied = reply?.hookSpecificOutput?.permissionDecision === "deny";
    let content: string;
    let isError = false;
    if (denied) {
      content = reply.hookSpecificOutput?.permissionDecisionReason ?? "denied";
      isError = true;
    } else if (m.error) {
      content = `Error executing tool ${m.tool}: ${m.error}\n\n[error] tool reported failure`;
      isError = true;
      engine({
        word: "post-fail",
        session,
        tool: mcpName(m.tool),
        input: m.input,
        toolUseId: id,
        error: content,
      });
    } else {
      content = JSON.stringify(m.result ?? {});
      engine({
        word: "post",
        session,
        tool: mcpName(m.tool),
        input: m.input,
        toolUseId: id,
        response: [{ type: "text", text: content }],
      });
    }
    steps.push({
      step_id: steps.length + 1,
      timestamp: stamp(),
      source: "agent",
      model_name: model,
      message: retry ? "Applying the fix the guard asked for, then retrying." : "",
      tool_calls: [{
        tool_call_id: id,
        function_name: mcpName(m.tool),
        arguments: m.input,
        extra: { raw_arguments: JSON.stringify(m.input), tool_use_name: mcpName(m.tool) },
      }],
      observation: {
        results: [{
          source_call_id: id,
          content,
          extra: { tool_result_is_error: isError, tool_result_metadata: { is_error: isError } },
        }],
      },
      metrics,
      llm_call_count: 1,
      extra: { stop_reason: "tool_use", cwd: "/workspace", is_sidechain: false },
    });
    if (!denied && !m.error && !retry) { for (const c of m.breaks ?? []) failed.add(c); }
    return !denied;
  };

  for (const m of script.moves) {
    if (call(m)) continue;
    if (m.fix) {
      for (const f of m.fix) call(f, true);
      call(m, true);
      continue;
    }
    // A denial the script has no fix for: the agent retries as is until the block budget releases the call.
    for (let tries = 0; tries < DEFAULT_BOUNDS.blockBudget + 1 && !call(m); tries++);
  }
  let closing = script.closing;
  if (closing) { for (const c of closing.breaks) failed.add(c); }
  for (let round = 0; round < 4; round++) {
    clock += 1500;
    steps.push({
      step_id: steps.length + 1,
      timestamp: stamp(),
      source: "agent",
      model_name: model,
      message: "The case is complete.",
      llm_call_count: 1,
      metrics: { prompt_tokens: 52000, completion_tokens: 60, cached_tokens: 50000 },
      extra: { stop_reason: "end_turn", cwd: "/workspace", is_sidechain: false },
    });
    const stop = engine({ word: "stop", session, subagent: false });
    if ((stop?.reply as { decision?: string })?.decision !== "block") break;
    userStep(`Stop hook feedback:\n${(stop?.reply as { reason?: string }).reason ?? ""}`);
    if (!closing) break;
    for (const m of closing.moves) call(m, true);
    for (const c of closing.breaks) failed.delete(c);
    closing = undefined;
  }
  for (const c of script.judged ?? []) failed.add(c);
  return { steps, ledger, failed: [...failed], cost, end: clock };
}

/** The sample trials, in memory: every task × arm × attempt, variants drawn from the seed. */
export function sampleTrials(opts: SampleOptions = {}): SampleTrial[] {
  const rng = rngOf(opts.seed ?? 21);
  const attempts = opts.attempts ?? 2;
  const arms = opts.arms ?? ["stock", "checklist"];
  const trials: SampleTrial[] = [];
  let start = Date.parse("2026-07-20T09:00:00Z");
  for (const task of TASKS) {
    for (let attempt = 0; attempt < attempts; attempt++) {
      const roll = rng();
      const variant: Variant = roll < 0.45 ? "slip" : roll < 0.7 ? "judgement" : "clean";
      const scriptSeed = Math.floor(rng() * 2 ** 31);
      for (const arm of arms) {
        const trialName = `${task.name.slice(0, 32).replace(/[_-]+$/, "")}__${shortId(rng)}`;
        const session = uuidOf(rng);
        const script = task.script(variant, rngOf(scriptSeed));
        start += 600_000;
        const run = runScript(script, { arm, session, start, rng });
        const reward = run.failed.length ? 0.0 : 1.0;
        const iso = (ms: number) => new Date(ms).toISOString();
        // Every arm runs the registered fiable-cc harness; only the agent kwarg `arm` differs (the protocol).
        const config = {
          trial_name: trialName,
          trials_dir: `logs/experiments/fiable/${arm}/${task.domain}/fiable-${arm}-${task.domain}`,
          agent: {
            name: null,
            import_path: "chi_bench.experiment.agents.fiable_cc_harness:FiableClaudeCode",
            model_name: "anthropic/claude-opus-5",
            kwargs: { arm },
            env: {},
          },
        };
        const result = {
          id: uuidOf(rng),
          task_name: `actava-ai/${task.name}`,
          trial_name: trialName,
          trial_uri: `file://./samples/${arm}/${task.domain}/${trialName}`,
          source: "fiable-samples",
          config,
          agent_info: {
            name: "fiable-cc",
            version: "2.1.219",
            model_info: { name: "claude-opus-5", provider: "anthropic" },
          },
          agent_result: {
            n_input_tokens: 0,
            n_cache_tokens: 0,
            n_output_tokens: 0,
            cost_usd: Math.round(run.cost * 1e6) / 1e6,
            rollout_details: null,
            metadata: null,
          },
          verifier_result: { rewards: { reward } },
          exception_info: null,
          started_at: iso(start - 40_000),
          finished_at: iso(run.end + 200_000),
          environment_setup: { started_at: iso(start - 40_000), finished_at: iso(start - 20_000) },
          agent_setup: { started_at: iso(start - 20_000), finished_at: iso(start) },
          agent_execution: { started_at: iso(start), finished_at: iso(run.end) },
          verifier: { started_at: iso(run.end + 10_000), finished_at: iso(run.end + 190_000) },
          step_results: null,
        };
        const usage = run.steps.reduce<{ p: number; c: number; o: number }>((acc, s) => {
          const m = s.metrics as {
            prompt_tokens?: number;
            cached_tokens?: number;
            completion_tokens?: number;
          } | undefined;
          return {
            p: acc.p + (m?.prompt_tokens ?? 0),
            c: acc.c + (m?.cached_tokens ?? 0),
            o: acc.o + (m?.completion_tokens ?? 0),
          };
        }, { p: 0, c: 0, o: 0 });
        result.agent_result.n_input_tokens = usage.p;
        result.agent_result.n_cache_tokens = usage.c;
        result.agent_result.n_output_tokens = usage.o;
        trials.push({
          arm,
          domain: task.domain,
          trialName,
          result,
          scorecard: scorecardOf(task.domain, run.failed),
          reward: { reward },
          trajectory: {
            schema_version: "ATIF-v1.7",
            session_id: session,
            agent: {
              name: "claude-code",
              version: "2.1.219",
              model_name: "claude-opus-5",
              extra: { cwds: ["/workspace"], git_branches: ["HEAD"] },
            },
            steps: run.steps,
          },
          ledger: run.ledger,
          config,
          harness: arm === "stock" ? null : { arm, hooks: "http", port: 8787 },
        });
      }
    }
  }
  return trials;
}

function uuidOf(rng: Rng): string {
  const h = hex(rng, 32);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** Where each arm's trials were written: `{arm: dir}`, and how many trials. */
export interface WrittenSamples {
  arms: Record<string, string>;
  trials: number;
}

/**
 * Writes the sample trials as real trial dirs under `dir/<arm>/<domain>/<trial>/` with Harbor's config.json;
 * guarded arms get `agent/fiable/` (harness.json and the ledger), so `deno task verify` passes on them.
 */
export function writeSamples(dir: string, opts: SampleOptions = {}): WrittenSamples {
  const arms: Record<string, string> = {};
  const trials = sampleTrials(opts);
  const json = (path: string, value: unknown) => writeFileSync(path, JSON.stringify(value, null, 2) + "\n");
  for (const t of trials) {
    arms[t.arm] = join(dir, t.arm);
    const root = join(dir, t.arm, t.domain, t.trialName);
    mkdirSync(join(root, "verifier"), { recursive: true });
    mkdirSync(join(root, "agent"), { recursive: true });
    json(join(root, "config.json"), t.config);
    json(join(root, "result.json"), t.result);
    json(join(root, "verifier", "scorecard.json"), t.scorecard);
    json(join(root, "verifier", "reward.json"), t.reward);
    json(join(root, "agent", "trajectory.json"), t.trajectory);
    if (t.ledger.length) {
      mkdirSync(join(root, "agent", "fiable"), { recursive: true });
      if (t.harness) json(join(root, "agent", "fiable", "harness.json"), t.harness);
      const session = String(t.trajectory.session_id);
      writeFileSync(
        join(root, "agent", "fiable", `${session}.jsonl`),
        t.ledger.map((r) => JSON.stringify(r)).join("\n") + "\n",
      );
      const ended = new Date(String((t.result.agent_execution as { finished_at: string }).finished_at));
      utimesSync(join(root, "agent", "fiable", `${session}.jsonl`), ended, ended);
    }
  }
  return { arms, trials: trials.length };
}
