/** Resident http mode: the same decisions over `POST /hook/<event>`, state in memory, ledger appended. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseLedger } from "../lib/guard/ledger/ledger.ts";
import { runtimes, serveGuard, tempLedger, until } from "./support/guard_process.ts";
import { post, pre, prompt, PROVIDER_PROMPT } from "./support/payloads.ts";

async function hook(url: string, word: string, body: string) {
  const res = await fetch(`${url}/hook/${word}`, { method: "POST", body });
  return await res.json();
}

for (const runtime of await runtimes()) {
  const s = suite(`serve (${runtime.name})`);

  s("decides like command mode and keeps the session in memory", async () => {
    const dir = tempLedger();
    const server = await serveGuard(runtime, { FIABLE_LEDGER_DIR: dir, FIABLE_CC_ARM: "checklist" });
    try {
      const health = await (await fetch(`${server.url}/health`)).json();
      assert.equal([health.ok, health.arm, health.ledger], [true, "checklist", dir]);
      assert.ok(Number.isInteger(health.pid) && Number.isInteger(health.supervisor), JSON.stringify(health));
      await hook(server.url, "prompt", prompt("h1", PROVIDER_PROMPT));
      const denied = await hook(
        server.url,
        "pre",
        pre("h1", "auth_submit_authorization", { case_id: "CASE-ACT-001" }),
      );
      assert.is(denied.hookSpecificOutput.permissionDecision, "deny");
      const decided = {
        case_id: "CASE-ACT-001",
        final_action: "submit_pa",
        override_reason: "All criteria met.",
      };
      // The happy path's earlier steps: the case and its bundle (other rules want them before a submission).
      const created = { case: { id: "CASE-ACT-001", status: "draft" } };
      await hook(server.url, "post", post("h1", "cases_create_from_order", { patient_id: "PAT-1" }, created));
      const bundle = { document: { id: "DOC-BUNDLE-c77bc09c", case_id: "CASE-ACT-001" } };
      await hook(
        server.url,
        "post",
        post("h1", "docs_create_submission_bundle", { case_id: "CASE-ACT-001" }, bundle),
      );
      await hook(
        server.url,
        "post",
        post("h1", "auth_finalize_provider_determination", decided, { ok: true }),
      );
      const allowed = await hook(
        server.url,
        "pre",
        pre("h1", "auth_submit_authorization", { case_id: "CASE-ACT-001" }),
      );
      assert.is(allowed.hookSpecificOutput.permissionDecision, "allow");
      const { records } = parseLedger(readFileSync(join(dir, "h1.jsonl"), "utf8"));
      assert.equal(records.map((r) => r.decision), [
        "context",
        "deny",
        "record",
        "record",
        "record",
        "allow",
      ]);
    } finally {
      server.stop();
    }
  });

  s("bad bodies and unknown routes fail open or say how to call", async () => {
    const dir = tempLedger();
    const server = await serveGuard(runtime, { FIABLE_LEDGER_DIR: dir });
    try {
      const reply = await hook(server.url, "pre", "{not json");
      assert.is(reply.hookSpecificOutput.permissionDecision, "allow");
      const res = await fetch(`${server.url}/hook/nope`, { method: "POST", body: "{}" });
      assert.is(res.status, 404);
      assert.match((await res.json()).error, "POST /hook/<event>");
    } finally {
      server.stop();
    }
  });

  s("with a token, the bearer scheme is taken in any case; a missing or wrong token gets 401", async () => {
    const dir = tempLedger();
    const token = "t0k-resident-guard";
    const server = await serveGuard(runtime, {
      FIABLE_LEDGER_DIR: dir,
      FIABLE_CC_ARM: "checklist",
      FIABLE_SUPERVISE: "0",
      FIABLE_GUARD_TOKEN: token,
    });
    try {
      const send = (authorization?: string) =>
        fetch(`${server.url}/hook/pre`, {
          method: "POST",
          body: pre("tok", "chart_search_patients", {}),
          headers: authorization ? { authorization } : {},
        });
      for (const scheme of ["Bearer", "bearer", "BEARER"]) {
        const res = await send(`${scheme} ${token}`);
        assert.is(res.status, 200, scheme);
        assert.is((await res.json()).hookSpecificOutput.permissionDecision, "allow");
      }
      for (const wrong of [undefined, "Bearer nope", `Basic ${token}`]) {
        const res = await send(wrong);
        assert.is(res.status, 401, String(wrong));
        await res.body?.cancel();
      }
    } finally {
      server.stop();
    }
  });

  s("parallel requests of one session all land in the ledger", async () => {
    const dir = tempLedger();
    const server = await serveGuard(runtime, { FIABLE_LEDGER_DIR: dir });
    try {
      await Promise.all(Array.from({ length: 32 }, (_, i) =>
        hook(
          server.url,
          "post",
          post(
            "h3",
            "chart_get_patient_chart_by_patient",
            { patient_id: "PAT-c7e617a246b7" },
            { i },
            `toolu_${i}`,
          ),
        )));
      const { records, corrupt } = parseLedger(readFileSync(join(dir, "h3.jsonl"), "utf8"));
      assert.is(corrupt, 0);
      assert.is(records.length, 32);
    } finally {
      server.stop();
    }
  });

  s("it warms its decision path once listening: no file, no record, events answered meanwhile", async () => {
    const dir = tempLedger();
    const server = await serveGuard(runtime, { FIABLE_LEDGER_DIR: dir, FIABLE_CC_ARM: "critic" });
    try {
      // Sent at once, so it meets the warm-up running: it waits for one step, and is decided as ever.
      await hook(server.url, "prompt", prompt("h4", PROVIDER_PROMPT));
      const denied = await hook(
        server.url,
        "pre",
        pre("h4", "auth_submit_authorization", { case_id: "CASE-9" }),
      );
      assert.is(denied.hookSpecificOutput.permissionDecision, "deny");
      const warm = await until("the warm-up report", 20_000, async () => {
        const health = await (await fetch(`${server.url}/health`)).json();
        return health.warm ?? undefined;
      });
      assert.is(warm.error, undefined, warm.error);
      assert.ok(warm.steps > 10 && warm.longestStepMs > 0, JSON.stringify(warm));
      // The ledger dir's key (lib/guard/resident/key.ts) is the guard's; the warm-up writes nothing.
      assert.equal(readdirSync(dir).sort(), ["guard.key", "h4.jsonl"]);
      const { records } = parseLedger(readFileSync(join(dir, "h4.jsonl"), "utf8"));
      assert.ok(records.every((r) => r.session === "h4"), "nothing of the warm-up session is recorded");
    } finally {
      server.stop();
    }
    const stock = await serveGuard(runtime, { FIABLE_LEDGER_DIR: dir, FIABLE_CC_ARM: "stock" });
    try {
      await new Promise((r) => setTimeout(r, 300));
      assert.is(
        (await (await fetch(`${stock.url}/health`)).json()).warm,
        null,
        "the stock arm decides nothing",
      );
    } finally {
      stock.stop();
    }
  });

  s.run();
}
