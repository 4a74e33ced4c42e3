/** Realistic hook payloads for tests, shaped like Claude Code's stdin (χ-Bench values). */

/** A PreToolUse payload for a healthverse tool (Claude Code spelling). */
export function pre(session: string, tool: string, input: Record<string, unknown>, id = "toolu_01"): string {
  return JSON.stringify({
    session_id: session,
    transcript_path: `/logs/agent/sessions/projects/-workspace/${session}.jsonl`,
    cwd: "/workspace",
    permission_mode: "bypassPermissions",
    hook_event_name: "PreToolUse",
    tool_name: `mcp__healthverse__${tool}`,
    tool_input: input,
    tool_use_id: id,
    mcp_server: { name: "healthverse", source: "user" },
  });
}

/** A PostToolUse payload whose response is one text block of JSON, as MCP results arrive. */
export function post(
  session: string,
  tool: string,
  input: Record<string, unknown>,
  result: unknown,
  id = "toolu_01",
): string {
  return JSON.stringify({
    session_id: session,
    hook_event_name: "PostToolUse",
    tool_name: `mcp__healthverse__${tool}`,
    tool_input: input,
    tool_response: [{ type: "text", text: JSON.stringify(result) }],
    tool_use_id: id,
  });
}

/** A PostToolUseFailure payload. */
export function postFail(
  session: string,
  tool: string,
  input: Record<string, unknown>,
  error: string,
): string {
  return JSON.stringify({
    session_id: session,
    hook_event_name: "PostToolUseFailure",
    tool_name: `mcp__healthverse__${tool}`,
    tool_input: input,
    tool_use_id: "toolu_err",
    error,
  });
}

/** A Stop payload. */
export function stop(session: string, active = false): string {
  return JSON.stringify({
    session_id: session,
    hook_event_name: "Stop",
    stop_hook_active: active,
    last_assistant_message: "Done.",
  });
}

/** A UserPromptSubmit payload. */
export function prompt(session: string, text: string): string {
  return JSON.stringify({
    session_id: session,
    hook_event_name: "UserPromptSubmit",
    prompt: text,
    source: "sdk",
  });
}

/** The opening of a provider task prompt (role line and title, as χ-Bench writes them). */
export const PROVIDER_PROMPT = "# 📋 Clinical Intake — Lumbar MRI for Mr. Rivera\n\n" +
  "| Patient data & provider tools | `healthverse` MCP server |\n\n" +
  "- Use only provider namespaces: `chart`, `cases`, `inbox`, `docs`, `forms`, `auth`, `people`, `p2p_session`\n";

/** The opening of a payer MD-review task prompt. */
export const PAYER_PROMPT = "# ⚕️ MD Review — Knee arthroscopy\n\n" +
  "| Case data & payer tools | `healthverse` MCP server |\n\n" +
  "- Use only payer namespaces: `payer_intake_hub`, `triage`, `review`, `determination`, `p2p`, `p2p_session`, " +
  "`payer_letter_center`\n\nFinalize the determination yourself.";

/** The opening of a care-management task prompt. */
export const CM_PROMPT = "# Ms. Zhang Care Management Handoff\n\n" +
  "| Patient data & care-manager tools | `healthverse` MCP server |\n\n" +
  "- Use only care-manager namespaces: `cm_intake`, `cm_chart`, `cm_outreach`, `cm_assessment`, `cm_care_plan`\n";
