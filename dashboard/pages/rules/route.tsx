/** The Rules page: every rule, judge and the closure gate by fires, then the check coverage map. */
import { Hono } from "hono";
import { RULES } from "../../../rules/mod.ts";
import { CHECKS } from "../../../rules/catalog/checks.ts";
import type { Page } from "../../context.ts";
import { ruleFires } from "./model.ts";
import { RulesPage } from "./view.tsx";

export const page: Page = {
  nav: { href: "/rules", label: "Rules" },
  routes({ store, refresh }) {
    const app = new Hono();
    app.get("/rules", (c) => {
      refresh();
      return c.render(
        <RulesPage model={ruleFires(store.rows())} checks={CHECKS} rules={RULES.map((r) => r.meta)} />,
        { title: "Rules", active: "Rules" },
      );
    });
    return app;
  },
};
