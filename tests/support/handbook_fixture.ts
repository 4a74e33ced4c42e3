/**
 * A synthetic Managed-Care Operations Handbook in the real folder shape (SKILL.md, references/provider-pa,
 * payer-um, care-manager, platform, medical-library/…): a few known anchor pages plus seeded filler pages of
 * a chosen size. The real handbook is gated and never in this repo.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { HandbookSource } from "../../lib/guard/handbook.ts";
import { prng as random } from "../../lib/results/stats.ts";

/** Anchor pages the tests expect to find, with the query that must rank each first. */
export const KNOWN: { query: string; path: string }[] = [
  {
    query: "Laparoscopic sleeve gastrectomy morbid obesity 43775",
    path: "references/medical-library/medical-policies/bariatric-surgery.md",
  },
  {
    query: "G47.33 CPAP titration",
    path: "references/medical-library/medical-policies/obstructive-sleep-apnea-treatment.md",
  },
  {
    query: "peer-to-peer appeals protocols",
    path: "references/payer-um/operational/04-appeals-p2p-protocols.md",
  },
  { query: "gold card triage routing", path: "references/payer-um/operational/02-triage-routing.md" },
  {
    query: "care plan SMART goals interventions",
    path: "references/care-manager/operational/care-plan-standards.md",
  },
  {
    query: "paroxysmal atrial fibrillation anticoagulation",
    path: "references/medical-library/clinical-guidelines/atrial-fibrillation.md",
  },
  {
    query: "lumbar artificial disc replacement",
    path: "references/medical-library/medical-policies/total-artificial-disc-replacement-spine.md",
  },
];

const ANCHORS: HandbookSource[] = [
  {
    path: "SKILL.md",
    text:
      "---\n\n## name: managed-care-operations-handbook\ndescription: Use when acting in any of the three " +
      "managed-care operations roles.\n\n# Managed-Care Operations Handbook\n\nRead this index first, open one " +
      "sub-book, then open chapters on demand.\n",
  },
  {
    path: "references/provider-pa/01-workflow.md",
    text:
      "---\nname: prior-authorization-specialist-workflow\ndescription: provider-side prior authorization " +
      "specialist workflow.\n---\n\n# Prior-Authorization Specialist Workflow (Provider Side)\n\n## Role and " +
      "scope\n\nThe provider-side prior-authorization specialist starts from a clinical referral.\n\n## " +
      "Authoritative sources\n\nThe chart supplies patient facts; the policy supplies criteria and evidence " +
      "requirements.\n",
  },
  {
    path: "references/provider-pa/SKILL.md",
    text: "# Prior Authorization Specialist (Provider Side)\n\n## Role\n\nThe active role is the prior " +
      "authorization specialist.\n",
  },
  {
    path: "references/provider-pa/pa-requirements/COMM-Prior-Auth-Crosswalk-Table.md",
    text:
      "# Commercial Prior Authorization Crosswalk Table\n\n## Procedures requiring prior authorization\n\n" +
      "| Procedure | Code |\n|---|---|\n| Bariatric surgery | 43644 |\n| Spinal fusion | 22612 |\n",
  },
  {
    path: "references/payer-um/01-workflow.md",
    text: "# Utilization Management Reviewer Workflow\n\n## Stages\n\nIntake, triage, clinical review, " +
      "determination and correspondence.\n",
  },
  {
    path: "references/payer-um/operational/01-intake-eligibility.md",
    text:
      "# Intake and Eligibility\n\n## Member eligibility\n\nCoverage must be active on the date of service.\n",
  },
  {
    path: "references/payer-um/operational/02-triage-routing.md",
    text:
      "# Triage Routing\n\n## Gold card\n\nA gold-card clinician's non-excluded request takes the gold card " +
      "lane.\n\n## Routing lanes\n\nStandard UM, delegate, specialty program.\n",
  },
  {
    path: "references/payer-um/operational/03-clinical-review-standards.md",
    text:
      "# Clinical Review Standards\n\n## Nurse review\n\nNurses approve or escalate.\n\n## Physician review" +
      "\n\nThe medical director signs the decision.\n",
  },
  {
    path: "references/payer-um/operational/04-appeals-p2p-protocols.md",
    text: "# Appeals and Peer-to-Peer Protocols\n\n## Peer-to-peer\n\nOffer slots, schedule, hold the " +
      "peer-to-peer conversation, record the outcome.\n\n## Appeals\n\nIndependent reviewer.\n",
  },
  {
    path: "references/care-manager/01-workflow.md",
    text: "# Care Manager Workflow\n\n## Stages\n\nIntake, chart review, outreach, assessment, care plan.\n",
  },
  {
    path: "references/care-manager/operational/care-plan-standards.md",
    text:
      "# Care Plan Standards\n\n## SMART goals\n\nEvery goal has measurable criteria and a target date.\n\n" +
      "## Interventions\n\nEach intervention has an owner and a due date or frequency.\n",
  },
  {
    path: "references/care-manager/operational/outreach-protocol.md",
    text:
      "# Outreach Protocol\n\n## Consent\n\nAsk for consent before enrolment.\n\n## Teach-back\n\nConfirm " +
      "understanding.\n",
  },
  {
    path: "references/medical-library/medical-policies/bariatric-surgery.md",
    text: "# Bariatric Surgery\n\n**Policy Number:** 2026T0362QQ\n\n## Coverage Rationale\n\nLaparoscopic " +
      "sleeve gastrectomy and gastric bypass are proven for morbid obesity with a BMI of 40 or more after a " +
      "supervised weight-loss program.\n\n## Applicable Codes\n\n43644, 43775, E66.01\n",
  },
  {
    path: "references/medical-library/medical-policies/obstructive-sleep-apnea-treatment.md",
    text:
      "# Obstructive and Central Sleep Apnea Treatment\n\n## Coverage Rationale\n\nPositive airway pressure " +
      "after CPAP titration.\n\n## Applicable Codes\n\nG47.33, E0601\n",
  },
  {
    path: "references/medical-library/medical-policies/total-artificial-disc-replacement-spine.md",
    text:
      "# Total Artificial Disc Replacement for the Spine\n\n## Coverage Rationale\n\nLumbar artificial disc " +
      "replacement is unproven.\n\n## Applicable Codes\n\n22857\n",
  },
  {
    path: "references/medical-library/clinical-guidelines/atrial-fibrillation.md",
    text: "# Atrial Fibrillation\n\n## Paroxysmal atrial fibrillation\n\nRate control, rhythm control and " +
      "anticoagulation by stroke risk.\n",
  },
];

const FOLDERS = [
  "references/medical-library/medical-policies",
  "references/medical-library/medical-policies-medicare",
  "references/medical-library/drug-pa",
  "references/medical-library/clinical-guidelines",
  "references/medical-library/care-plans",
  "references/medical-library/utilization-review",
  "references/provider-pa/pa-requirements",
  "references/provider-pa/forms/commercial-pa",
  "references/payer-um/operational",
  "references/care-manager/operational",
];

// Filler words avoid every anchor's topic words, so anchors rank first on their own queries.
const WORDS =
  ("therapy dosage infusion imaging radiograph ultrasound biopsy catheter implant prosthesis orthotic " +
    "dermatology ophthalmology retina cataract cochlear hearing dental oral maxillofacial hernia appendectomy " +
    "colonoscopy endoscopy esophageal pancreatic hepatic renal dialysis transplant oncology chemotherapy " +
    "radiation proton neurostimulator epidural facet ablation rhizotomy knee hip shoulder ankle wrist " +
    "arthroscopy meniscus ligament tendon cartilage osteotomy fracture wheelchair walker oxygen nebulizer " +
    "infant pediatric adolescent geriatric pregnancy prenatal fertility genetic panel biomarker antibody " +
    "vaccine allergy asthma bronchoscopy pulmonary rehabilitation cardiac stent valve pacemaker lipid statin " +
    "thyroid adrenal pituitary insulin pump glucose monitor wound hyperbaric skin graft laser varicose vein " +
    "lymphedema compression speech occupational physical documentation physician review frequency units " +
    "duration limits exclusions benefit coverage indications contraindications evidence literature trial " +
    "outcomes safety efficacy").split(" ");

function filler(i: number, bytes: number, rand: () => number): HandbookSource {
  const pick = () => WORDS[Math.floor(rand() * WORDS.length)];
  const title = `${pick()} ${pick()} ${pick()}`.replace(/^./, (c) => c.toUpperCase());
  const folder = FOLDERS[i % FOLDERS.length];
  const parts = [`# ${title}\n\n**Policy Number:** 2026F${String(i).padStart(4, "0")}\n`];
  let size = parts[0].length;
  let section = 0;
  while (size < bytes) {
    const chunk = section % 3 === 0 ? `\n## ${pick()} ${pick()}\n\n` : "";
    const sentence = Array.from({ length: 12 }, pick).join(" ") + ". ";
    parts.push(chunk + sentence);
    size += chunk.length + sentence.length;
    section++;
  }
  return { path: `${folder}/${title.toLowerCase().replace(/\s+/g, "-")}-${i}.md`, text: parts.join("") };
}

/** The synthetic handbook: the anchor pages plus filler pages up to `count`, each about `bytes` long. */
export function handbookSources(
  options: { count?: number; bytes?: number; seed?: number } = {},
): HandbookSource[] {
  const count = options.count ?? 300;
  const rand = random(options.seed ?? 7);
  const out = [...ANCHORS];
  for (let i = out.length; i < count; i++) out.push(filler(i, options.bytes ?? 1_500, rand));
  return out;
}

/** Writes the synthetic handbook under `dir` and returns its sources. */
export function writeHandbook(
  dir: string,
  options: { count?: number; bytes?: number; seed?: number } = {},
): HandbookSource[] {
  const sources = handbookSources(options);
  for (const s of sources) {
    mkdirSync(dirname(join(dir, s.path)), { recursive: true });
    writeFileSync(join(dir, s.path), s.text);
  }
  return sources;
}
