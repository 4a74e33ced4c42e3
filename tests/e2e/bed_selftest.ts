/**
 * The end-to-end bed checked with the official clients, without Claude Code: the scripted model's stream
 * parses with @anthropic-ai/sdk into the scripted turn, and the stub healthverse server lists the seat's
 * real tool names with readOnlyHint on reads and errs the way the simulator errs.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import Anthropic from "@anthropic-ai/sdk";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { startModelServer } from "../support/e2e/model_server.ts";
import { ccName, startHealthverse } from "../support/e2e/healthverse.ts";
import { mcp } from "../support/e2e/scenario.ts";

const s = suite("e2e bed self-test");

s("the scripted stream parses with the Anthropic SDK; side requests leave the script alone", async () => {
  const call = mcp("triage_get", { case_id: "CASE-3903B8ED" }, "toolu_selftest_1");
  const model = await startModelServer([{ text: "Reading.", calls: [call] }]);
  try {
    const client = new Anthropic({ baseURL: model.url, apiKey: "sk-ant-e2e-dummy" });
    const title = await client.messages.create({
      model: "claude-scripted",
      max_tokens: 50,
      messages: [{ role: "user", content: "Title this session" }],
    });
    assert.is(title.content[0].type, "text");
    const message = await client.messages.stream({
      model: "claude-scripted",
      max_tokens: 1000,
      tools: [{ name: call.name, input_schema: { type: "object" } }],
      messages: [{ role: "user", content: "Go" }],
    }).finalMessage();
    assert.is(message.stop_reason, "tool_use");
    assert.equal(message.content.map((b) => b.type), ["text", "tool_use"]);
    const use = message.content[1] as { id: string; name: string; input: unknown };
    assert.equal([use.id, use.name, use.input], [call.id, call.name, call.input]);
    assert.equal(model.requests.map((r) => r.main), [false, true]);
    assert.is(model.remaining(), 0);
  } finally {
    await model.close();
  }
});

s("the stub lists real names, marks reads readOnlyHint and errs like the simulator", async () => {
  const stub = await startHealthverse("payer");
  const client = new Client({ name: "selftest", version: "0.0.0" });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(stub.url)));
    const tools = (await client.listTools()).tools as Tool[];
    const finalize = tools.find((t: Tool) => t.name === "determination.finalize");
    const summary = tools.find((t: Tool) => t.name === "determination.get_summary");
    assert.is(finalize?.annotations?.readOnlyHint, false);
    assert.is(summary?.annotations?.readOnlyHint, true);
    assert.is(ccName("determination.finalize"), "mcp__healthverse__determination_finalize");
    const early = await client.callTool({
      name: "determination.finalize",
      arguments: { case_id: "CASE-3903B8ED", decision: "approved" },
    });
    assert.is(early.isError, true);
    assert.match(
      (early.content as { text: string }[])[0].text,
      /^Error executing tool determination\.finalize: Case CASE-3903B8ED cannot be finalized/,
    );
    assert.equal(stub.calls.map((c) => c.tool), ["determination.finalize"]);
  } finally {
    await client.close();
    await stub.close();
  }
});

s.run();
