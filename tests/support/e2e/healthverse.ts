/**
 * A stub healthverse MCP server for end-to-end tests: one seat's real tool names over streamable HTTP
 * (`@modelcontextprotocol/sdk`, stateless), with small realistic results (identifier formats of the real
 * simulator) and the real simulator's error text where it errs. Tests may override any tool's handler, and
 * every call is recorded (and served as JSON at `GET /calls`, the world state a stand-in verifier scores).
 * The name a task gives the server (`healthverse`, `chi-bench`, `chi-bench-payer`, …) lives in the
 * client's `.claude.json`, not here.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  type CallToolRequest,
  CallToolRequestSchema,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { type ToolInfo, TOOLS } from "../../../rules/catalog/tools.ts";

/** A seat whose server the stub plays. */
export type StubSeat = "provider" | "payer" | "cm";

/** A tool error as the simulator reports it: the message after `Error executing tool <name>: `. */
export class ToolError extends Error {}

/** A result given verbatim (a recorded observation): its text, and whether the server flagged it an error. */
export class RawResult {
  constructor(readonly text: string, readonly isError = false) {}
}

/** A tool handler: arguments in, JSON result (or a RawResult) out; throw ToolError for a simulator error. */
export type Handler = (args: Record<string, unknown>, world: World) => unknown;

/** One call the stub served. */
export interface StubCall {
  tool: string;
  args: Record<string, unknown>;
  result?: unknown;
  error?: string;
}

/** The simulator state the default handlers keep (one target case per seat). */
export interface World {
  seat: StubSeat;
  state: Record<string, unknown>;
}

/** A running stub server. */
export interface Healthverse {
  url: string;
  seat: StubSeat;
  tools: ToolInfo[];
  calls: StubCall[];
  close(): Promise<void>;
}

/** The registered names (`namespace.method`) a seat's server exposes, as the real servers do. */
export function seatTools(seat: StubSeat): ToolInfo[] {
  return TOOLS.filter((t) => t.exposed && (t.domain === seat || (t.domain === "shared" && seat !== "cm")));
}

/** The name a tool is registered under on the stub: the real server's `namespace.method`. */
export function registeredName(tool: ToolInfo): string {
  return tool.name;
}

/** The name the model uses for a tool in Claude Code: `mcp__<server>__<namespace>_<method>`. */
export function ccName(name: string, server = "healthverse"): string {
  return `mcp__${server}__${name.replace(".", "_")}`;
}

const PAYER_CASE = "CASE-3903B8ED";
const PROVIDER_PATIENT = "PAT-c7e617a246b7";
const CM_KEY = "CM_AFIB_MODERATE_ANXIOUS_001";

function hex(n: number): string {
  let s = "";
  for (let i = 0; i < n; i++) s += Math.floor(Math.random() * 16).toString(16);
  return s;
}

function fail(message: string): never {
  throw new ToolError(message);
}

/** Default handlers: the happy path of each seat and the simulator's precondition errors. */
export const DEFAULTS: Record<string, Handler> = {
  // provider
  "chart.search_patients": () => ({
    result: [{ patient_id: PROVIDER_PATIENT, first_name: "Maria", last_name: "Lopez", dob: "1961-04-12" }],
  }),
  "chart.list_candidate_orders": (a) => ({
    result: [{ service_request_id: "SR-001", patient_id: a.patient_id ?? PROVIDER_PATIENT, code: "72148" }],
  }),
  "cases.create_from_order": (_a, w) => {
    if (w.state.case) fail("A case already exists for service request SR-001.");
    w.state.case = "CASE-ACT-001";
    return {
      case: {
        id: "CASE-ACT-001",
        external_case_id: "PA-ACT-001",
        patient_id: PROVIDER_PATIENT,
        service_request_id: "SR-001",
        status: "draft",
      },
      summary: { workflow_state: { workflow_stage: "pre_submission", stage_detail: "draft" } },
      next_actions: ["complete_service_request", "check_requirement"],
    };
  },
  "auth.finalize_provider_determination": (a, w) => {
    if (w.state.submitted) fail(`Case ${a.case_id} is already submitted; the determination cannot change.`);
    w.state.determination = a.final_action;
    return {
      determination: { id: `PDET-${hex(8)}`, case_id: a.case_id, final_action: a.final_action },
      case: { id: a.case_id, status: a.final_action === "submit_pa" ? "ready_to_submit" : "draft" },
    };
  },
  "docs.create_submission_bundle": (a) => ({
    document: { id: `DOC-BUNDLE-${hex(8)}`, case_id: a.case_id, kind: "submission_bundle" },
  }),
  "auth.submit_authorization": (a, w) => {
    if (w.state.submitted) fail(`Case ${a.case_id} has already been submitted.`);
    w.state.submitted = true;
    return {
      submission: { id: `SUB-${hex(8)}`, case_id: a.case_id, intake_case_id: `intake-${hex(8)}` },
      case: { id: a.case_id, status: "submitted" },
    };
  },
  // payer
  "payer_intake_hub.list_intake_queue": () => ({
    result: [
      {
        case_id: PAYER_CASE,
        intake_case_id: "INTAKE-457D5541",
        patient_id: "PAT-968308DB",
        status: "submitted",
      },
      {
        case_id: "CASE-1A2B3C4D",
        intake_case_id: "INTAKE-9F8E7D6C",
        patient_id: "PAT-11AA22BB",
        status: "submitted",
      },
    ],
  }),
  "triage.get": (a) => ({ case_id: a.case_id, disposition: "md_review", lane: "standard" }),
  "review.get_md_review_data": (a) => ({
    case: { id: a.case_id, status: "under_review", patient_id: "PAT-968308DB" },
    nurse_review: { id: `NR-${hex(8)}`, recommendation: "refer_to_md" },
    criteria: [{ id: "C1", met: true }],
  }),
  "review.submit_md_case_decision": (a, w) => {
    if (w.state.mdDecision) fail("A case decision has already been submitted.");
    w.state.mdDecision = a.decision;
    return {
      case_decision: {
        id: `MCD-${hex(8)}`,
        case_id: a.case_id,
        intake_case_id: "INTAKE-457D5541",
        decision: a.decision,
      },
    };
  },
  "determination.get_summary": (a, w) => ({
    case_id: a.case_id,
    upstream: w.state.mdDecision ? { source: "md_decision", decision: w.state.mdDecision } : null,
    finalizable: Boolean(w.state.mdDecision),
  }),
  "determination.finalize": (a, w) => {
    if (w.state.finalized) fail(`Determination for ${a.case_id} has already been finalized.`);
    if (!w.state.mdDecision) {
      fail(`Case ${a.case_id} cannot be finalized: physician review is still awaited.`);
    }
    w.state.finalized = a.decision;
    const id = String(a.case_id);
    return {
      determination: {
        id: `DET-${hex(8)}`,
        case_id: id,
        source: "md_decision",
        source_record_id: `MCD-${hex(8)}`,
        final_decision: a.decision,
      },
      case: { id, status: a.decision, authorization_number: `AUTH-${id}-${hex(6).toUpperCase()}` },
    };
  },
  "payer_letter_center.generate_approval": (a, w) => {
    if (w.state.finalized !== "approved") fail(`Case ${a.case_id} has no finalized approved determination.`);
    w.state.letter = `LET-${hex(8)}`;
    return { letter: { id: w.state.letter, case_id: a.case_id, kind: "approval", status: "composed" } };
  },
  "payer_letter_center.audit_completeness": (a) => ({ letter_id: a.letter_id, complete: true, missing: [] }),
  "payer_letter_center.deliver": (a, w) => {
    if (a.letter_id !== w.state.letter) fail(`Letter ${a.letter_id} not found.`);
    return {
      letter: { id: a.letter_id, case_id: PAYER_CASE, status: "delivered", channel: a.channel ?? "fax" },
    };
  },
  // care management
  "cm_intake.list_referral_queue": () => ({
    result: [{
      referral_id: `REF-${CM_KEY}`,
      patient_id: `CM-PAT-${CM_KEY}`,
      program: "cardiac",
      status: "new",
    }],
  }),
  "cm_intake.get_referral": (a) => ({
    referral_id: a.referral_id,
    case_id: `CM-CASE-${CM_KEY}`,
    status: "new",
  }),
  "cm_intake.open_case": (_a, w) => {
    if (w.state.cmCase) fail("Referral has already been opened.");
    w.state.cmCase = `CM-CASE-${CM_KEY}`;
    return { case_id: w.state.cmCase, patient_id: `CM-PAT-${CM_KEY}`, status: "intake_complete" };
  },
  "cm_chart.get_chart_data": (a, w) => {
    if (a.case_id !== w.state.cmCase) fail(`CM case ${a.case_id} not found.`);
    return { case_id: a.case_id, documents: [{ id: `DOC-${CM_KEY}-001`, title: "Discharge summary" }] };
  },
};

function generic(tool: ToolInfo, args: Record<string, unknown>): unknown {
  return { ok: true, tool: tool.name, ...args };
}

function inputSchema(tool: ToolInfo): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const arg of tool.args) properties[arg] = {};
  return { type: "object", properties };
}

function mcpServer(
  tools: ToolInfo[],
  handlers: Record<string, Handler>,
  world: World,
  calls: StubCall[],
): Server {
  const server = new Server({ name: "chi_bench-stub", version: "0.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: tools.map((t) => ({
      name: registeredName(t),
      description: `${t.name} (stub of the χ-Bench simulator).`,
      inputSchema: inputSchema(t),
      annotations: { readOnlyHint: t.effect === "read" },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, (req: CallToolRequest) => {
    const name = req.params.name;
    const args = (req.params.arguments ?? {}) as Record<string, unknown>;
    const tool = tools.find((t) => registeredName(t) === name);
    const call: StubCall = { tool: tool?.name ?? name, args };
    calls.push(call);
    try {
      if (!tool) fail(`Unknown tool: ${name}`);
      const handler = handlers[tool.name] ?? DEFAULTS[tool.name];
      const result = handler ? handler(args, world) : generic(tool, args);
      call.result = result;
      if (result instanceof RawResult) {
        if (result.isError) call.error = result.text;
        return {
          content: [{ type: "text", text: result.text }],
          ...(result.isError ? { isError: true } : {}),
        };
      }
      return {
        content: [{ type: "text", text: typeof result === "string" ? result : JSON.stringify(result) }],
      };
    } catch (err) {
      if (!(err instanceof ToolError)) throw err;
      call.error = err.message;
      return {
        content: [{ type: "text", text: `Error executing tool ${name}: ${err.message}` }],
        isError: true,
      };
    }
  });
  return server;
}

/** Starts the stub for a seat on 127.0.0.1 (a free port); the MCP endpoint is `<url>` (path `/mcp`). */
export function startHealthverse(
  seat: StubSeat,
  options: { handlers?: Record<string, Handler> } = {},
): Promise<Healthverse> {
  const tools = seatTools(seat);
  const calls: StubCall[] = [];
  const world: World = { seat, state: {} };
  const handlers = options.handlers ?? {};
  const handle = async (req: Request): Promise<Response> => {
    const path = new URL(req.url).pathname;
    if (path === "/calls" && req.method === "GET") return Response.json(calls);
    if (path !== "/mcp") return new Response("not found", { status: 404 });
    if (req.method !== "POST") return new Response(null, { status: 405, headers: { allow: "POST" } });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    const server = mcpServer(tools, handlers, world, calls);
    await server.connect(transport);
    const res = await transport.handleRequest(req);
    return res;
  };
  return new Promise((resolve) => {
    const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, handle);
    resolve({
      url: `http://127.0.0.1:${server.addr.port}/mcp`,
      seat,
      tools,
      calls,
      close: () => server.shutdown(),
    });
  });
}
