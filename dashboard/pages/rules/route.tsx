/** The Rules page: every rule, judge and the closure gate by fires, then the check coverage map. */
import { Hono } from "hono";
import { RULES } from "../../../rules/mod.ts";
import { CHECKS } from "../../../rules/catalog/checks.ts";
import { hx, type Page } from "../../context.ts";
import { ruleFires } from "./model.ts";
import { RulesPage, RulesView } from "./view.tsx";

export const page: Page = {
  nav: { href: "/rules", label: "Rules" },
  routes({ store, refresh }) {
    const app = new Hono();
    app.get("/rules", (c) => {
      refresh();
      const props = { model: ruleFires(store.rows()), checks: CHECKS, rules: RULES.map((r) => r.meta) };
      if (hx(c)) return c.html(<RulesView {...props} />);
      return c.render(<RulesPage {...props} />, { title: "Rules", active: "Rules" });
    });
    return app;
  },
};
