/** The Matrix page: passes/attempts per task and arm, flips against the control marked. */
import { Hono } from "hono";
import type { Page } from "../../context.ts";
import { taskMatrix } from "./model.ts";
import { MatrixPage } from "./view.tsx";

export const page: Page = {
  nav: { href: "/matrix", label: "Matrix" },
  routes({ refresh, waitFigures }) {
    const app = new Hono();
    app.get("/matrix", async (c) => {
      refresh();
      const state = await waitFigures();
      const matrix = state?.result ? taskMatrix(state.result) : null;
      const view = <MatrixPage matrix={matrix} pending={!state} controlNote={state?.controlNote} />;
      return c.render(view, { title: "Matrix", active: "Matrix" });
    });
    return app;
  },
};
