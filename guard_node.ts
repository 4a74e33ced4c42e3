/**
 * Entry of the Node ≥ 20 bundle (`dist/fiable-guard.cjs`): sets up the Node host, then calls main directly
 * (Node 20 has no `import.meta.main`). No top-level await: the bundle is CommonJS, compiled by its loader with
 * a V8 code cache (bundle.ts).
 */
import { setHost } from "./lib/guard/runtime/host.ts";
import { nodeHost } from "./lib/guard/runtime/host_node.ts";
import { setLazyLoader } from "./lib/guard/runtime/lazy.ts";
import { literalLoader } from "./lib/guard/lazy_node.ts";
import { main } from "./guard.ts";

const host = nodeHost();
setHost(host);
setLazyLoader(literalLoader);
main(host.args).then(host.setExitCode);
