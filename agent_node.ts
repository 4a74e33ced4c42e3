/**
 * Entry of the Node ≥ 20 bundle (`dist/fiable-agent.mjs`): Node 20 has no `import.meta.main`, so call main
 * directly, then exit at once rather than wait for idle keep-alive sockets (stdout/stderr writes are synchronous
 * for files and pipes on Linux, so nothing is lost).
 */
import process from "node:process";
import { main } from "./agent.ts";

process.exit(await main(process.argv.slice(2)));
