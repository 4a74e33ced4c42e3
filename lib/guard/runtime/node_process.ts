/**
 * Node's `process` (also Deno's node-compat one), for the guard's commands other than the hook path, which
 * import this module dynamically: the hook path must not load a `node:` module (guard.ts, tests/startup.ts).
 * A local module rather than `import("node:process")`, so the CommonJS bundle turns it into a `require`.
 */
import process from "node:process";

export default process;
