/** The Rules page: every rule with its checks and where it fired. */
import type { Child, FC } from "hono/jsx";
import type { CheckInfo } from "../../rules/catalog/checks.ts";
import type { RuleMeta } from "../../lib/guard/engine/rule.ts";
import type { FireCounts } from "../../lib/trajectories/verdict.ts";
import { fireCell } from "./arms.tsx";

import { Layout } from "./layout.tsx";

/** Fires of one rule across rows. */
export interface RuleFires {
  id: string;
  name: string;
  seat: string;
  protects: string[];
  failed: number;
  passed: number;
  other: number;
  /** Replay arm → replay's own fire counts for the rule (in time / too late; replay's summary). */
  replay: Record<string, FireCounts>;
}

/** The Rules page: fires per rule in guarded trials and in replays, then the check coverage map. */
export const RulesPage: FC<{
  fires: RuleFires[];
  replayArms: string[];
  checks: readonly CheckInfo[];
  rules: readonly RuleMeta[];
  failures: Map<string, number>;
  notice?: Child;
}> = ({ fires, replayArms, checks, rules, failures, notice }) => (
  <Layout title="Rules" active="Rules" notice={notice}>
    <h1>Rules</h1>
    <table id="rule-fires">
      <thead>
        <tr>
          <th>rule</th>
          <th>seat</th>
          <th>guarded trials: fired in failed</th>
          <th>… in passed</th>
          <th>… unscored</th>
          {replayArms.map((a) => <th key={a}>replay {a}: fires in failed (in time / too late) / passed</th>)}
          <th>protects</th>
        </tr>
      </thead>
      <tbody>
        {fires.map((f) => (
          <tr>
            <td>
              <a href={`/trials?rule=${encodeURIComponent(f.id)}`}>{f.id}</a>{" "}
              <span class="muted">{f.name}</span>
            </td>
            <td>{f.seat}</td>
            <td>{f.failed}</td>
            <td>{f.passed}</td>
            <td>{f.other}</td>
            {replayArms.map((a) => {
              const r = f.replay[a];
              return <td key={a} class={r?.fires_passed ? "fp" : ""}>{r ? fireCell(r) : "0 (0 / 0) / 0"}</td>;
            })}
            <td class="checks">{f.protects.join(", ")}</td>
          </tr>
        ))}
      </tbody>
    </table>
    <h2>Coverage of verifier checks</h2>
    <table id="coverage">
      <thead>
        <tr>
          <th>check</th>
          <th>stage</th>
          <th>kind</th>
          <th>preventable</th>
          <th>failed in</th>
          <th>protected by</th>
        </tr>
      </thead>
      <tbody>
        {checks.map((c) => {
          const by = rules.filter((r) =>
            r.protects.includes(c.id)
          ).map((r) =>
            r.id
          );
          return (
            <tr class={by.length ? "covered" : c.preventable === "yes" ? "gap" : ""}>
              <td>
                <code>{c.id}</code>
              </td>
              <td>{c.stage}</td>
              <td>{c.kind}</td>
              <td>{c.preventable}</td>
              <td>
                {failures.get(c.id)
                  ? <a href={`/trials?check=${encodeURIComponent(c.id)}`}>{failures.get(c.id)}</a>
                  : 0}
              </td>
              <td>{by.join(" ") || "—"}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  </Layout>
);

// ---------- Live ----------
