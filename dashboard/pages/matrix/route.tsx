/** The Matrix page: passes/attempts per task and arm, flips against the control marked. */
import { Hono } from "hono";
import { hx, type Page } from "../../context.ts";
import { taskMatrix } from "./model.ts";
import { MatrixPage, MatrixView } from "./view.tsx";

export const page: Page = {
  nav: { href: "/matrix", label: "Matrix" },
  routes({ refresh, waitFigures }) {
    const app = new Hono();
    app.get("/matrix", async (c) => {
      refresh();
      const state = await waitFigures();
      const matrix = state?.result ? taskMatrix(state.result) : null;
      const props = { matrix, pending: !state, controlNote: state?.controlNote };
      if (hx(c)) return c.html(<MatrixView {...props} />);
      return c.render(<MatrixPage {...props} />, { title: "Matrix", active: "Matrix" });
    });
    return app;
  },
};
