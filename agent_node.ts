/**
 * Entry of the Node ≥ 20 bundle (`dist/fiable-agent.mjs`): Node 20 has no `import.meta.main`, so call main
 * directly, then exit at once rather than wait for idle keep-alive sockets (stdout/stderr writes are synchronous
 * for files and pipes on Linux, so nothing is lost).
 */
import process from "node:process";
import { setHost } from "./lib/guard/runtime/host.ts";
import { nodeHost } from "./lib/guard/runtime/host_node.ts";
import { setLazyLoader } from "./lib/guard/runtime/lazy.ts";
import { literalLoader } from "./lib/guard/lazy_node.ts";
import { main } from "./agent.ts";

// The guard's ledger writes go through its host (lib/guard/runtime/host.ts): Node's, here.
setHost(nodeHost());
setLazyLoader(literalLoader);

process.exit(await main(process.argv.slice(2)));
