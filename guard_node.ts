/**
 * Entry of the Node ≥ 20 bundle (`dist/fiable-guard.cjs`): calls main directly (Node 20 has no
 * `import.meta.main`), or, under `node --build-snapshot`, prepares the start-up snapshot whose main it becomes
 * (lib/guard/runtime/snapshot.ts). No top-level await: the bundle is CommonJS.
 */
import { args, setExitCode } from "./lib/guard/io.ts";
import { main } from "./guard.ts";
import { buildingSnapshot, prepareSnapshot } from "./lib/guard/runtime/snapshot.ts";

if (buildingSnapshot()) void prepareSnapshot(main);
else main(args).then(setExitCode);
