/**
 * Entry of the Node ≥ 20 bundle (`dist/fiable-guard.cjs`): calls main directly (Node 20 has no
 * `import.meta.main`). No top-level await: the bundle is CommonJS, compiled by its loader with a V8 code cache
 * (bundle.ts).
 */
import { args, setExitCode } from "./lib/guard/io.ts";
import { main } from "./guard.ts";

main(args).then(setExitCode);
