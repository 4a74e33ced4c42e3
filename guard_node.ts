/** Entry of the Node ≥ 20 bundle (`dist/fiable-guard.mjs`): Node 20 has no `import.meta.main`, so call main directly. */
import process from "node:process";
import { main } from "./guard.ts";

process.exitCode = await main(process.argv.slice(2));
