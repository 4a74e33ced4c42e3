/** The Rules page: every rule with its checks and where it fired. */
import type { FC } from "hono/jsx";
import { Refreshed } from "../../ui/layout.tsx";
import type { CheckInfo } from "../../../rules/catalog/checks.ts";
import type { RuleMeta } from "../../../lib/guard/engine/rule.ts";
import { PANEL, type RuleFires, type RulesModel } from "./model.ts";
import type { NextCallCounts } from "../../../lib/trajectories/next_call.ts";
import { GATE } from "../../read/ledgers.ts";

/** A count that opens the trials it counts: the rule fired there (`by` the guard or a replay arm), with that outcome. */
const Count: FC<{ n: number; rule: string; by: string; outcome: string }> = ({ n, rule, by, outcome }) =>
  n ? <a href={`/trials?${new URLSearchParams({ rule, by, outcome })}`}>{n}</a> : <>0</>;

/** `complete of all` for a protector's replayed deny reasons (lib/trajectories/next_call.ts); · when none. */
function nextCallCell(n: NextCallCounts): string {
  const all = n.complete + n.partial + n.none;
  return all ? `${n.complete} of ${all}` : "·";
}

const FireRow: FC<{ f: RuleFires; replayArms: string[] }> = ({ f, replayArms }) => (
  <tr id={`rule-${f.id}`} class={`kind-${f.kind}`}>
    <td>
      <a href={`/trials?rule=${encodeURIComponent(f.id)}`}>{f.id}</a> <span class="muted">{f.name}</span>
    </td>
    <td>{f.seat}</td>
    <td>
      <Count n={f.failed} rule={f.id} by="guard" outcome="failed" />
    </td>
    <td>
      <Count n={f.passed} rule={f.id} by="guard" outcome="passed" />
    </td>
    <td>{f.other}</td>
    {replayArms.map((a) => {
      const r = f.replay[a];
      return (
        <td key={a} class={r?.fires_passed ? "fp" : ""}>
          {r
            ? (
              <>
                <Count n={r.fires_failed} rule={f.id} by={a} outcome="failed" /> ({r.in_time} /{" "}
                {r.too_late}) / <Count n={r.fires_passed} rule={f.id} by={a} outcome="passed" />
              </>
            )
            : "0 (0 / 0) / 0"}
        </td>
      );
    })}
    <td class="checks">
      {f.kind === "gate"
        ? <span class="muted">the checks of each obligation it holds open (the Checks page lists them)</span>
        : f.protects.join(", ") || <span class="muted">no check</span>}
    </td>
    <td class="next-call">{nextCallCell(f.nextCall)}</td>
  </tr>
);

const FireTable: FC<{ id: string; fires: RuleFires[]; replayArms: string[] }> = (
  { id, fires, replayArms },
) => (
  <table id={id}>
    <thead>
      <tr>
        <th>rule</th>
        <th>seat</th>
        <th>guarded trials: fired in failed</th>
        <th>… in passed</th>
        <th>… unscored</th>
        {replayArms.map((a) => <th key={a}>replay {a}: fires in failed (in time / too late) / passed</th>)}
        <th>protects</th>
        <th>replayed reasons: next call complete</th>
      </tr>
    </thead>
    <tbody>
      {fires.map((f) => <FireRow key={f.id} f={f} replayArms={replayArms} />)}
    </tbody>
  </table>
);

/**
 * Rules, judges, the critic panel and the closure gate by fires (in failed trials, then in time, then in
 * passing trials), those that never fired folded away, then the check coverage map: `<section
 * id="rules-view">`, fetched again when the rows change.
 */
export const RulesView: FC<{
  model: RulesModel;
  checks: readonly CheckInfo[];
  rules: readonly RuleMeta[];
}> = ({ model, checks, rules }) => (
  <Refreshed id="rules-view" url="/rules">
    <p class="muted">
      Most fired in failed trials first (guarded and replayed together), then most in time, then most in
      passing trials. A replayed fire in a passing trial is marked: that trial passed without the block, so
      the fire is a defect to explain or fix (in a guarded trial, a block may be what made it pass).
    </p>
    <FireTable id="rule-fires" fires={model.fired} replayArms={model.replayArms} />
    <details id="never-fired">
      <summary>{model.never.length} {model.never.length === 1 ? "rule" : "rules"} never fired here</summary>
      <FireTable id="rule-unfired" fires={model.never} replayArms={model.replayArms} />
    </details>
    <dl id="rule-kinds" class="facts">
      <dt>{GATE}</dt>
      <dd>
        the closure gate: it blocks the stop while an obligation is open (a case with no determination, a
        determination with no letter…); it protects the checks of the obligations it held, counted at the
        stop.
      </dd>
      <dt>{PANEL}</dt>
      <dd>
        the critic panel's own block: two of its three judges objected at a decision point (critic arm). It
        names no check, so its fires are never in time or too late; a judge allowed to block alone fires under
        its own id (CRITIC-01, CRITIC-02…).
      </dd>
    </dl>
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
          const by = rules.filter((r) => r.protects.includes(c.id)).map((r) => r.id);
          return (
            <tr class={by.length ? "covered" : c.preventable === "yes" ? "gap" : ""}>
              <td>
                <code>{c.id}</code>
              </td>
              <td>{c.stage}</td>
              <td>{c.kind}</td>
              <td>{c.preventable}</td>
              <td>
                {model.failures.get(c.id)
                  ? <a href={`/trials?check=${encodeURIComponent(c.id)}`}>{model.failures.get(c.id)}</a>
                  : 0}
              </td>
              <td>{by.join(" ") || "—"}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  </Refreshed>
);

/** The Rules page. */
export const RulesPage: FC<{
  model: RulesModel;
  checks: readonly CheckInfo[];
  rules: readonly RuleMeta[];
}> = (props) => (
  <>
    <h1>Rules</h1>
    <RulesView {...props} />
  </>
);

// ---------- Live ----------
