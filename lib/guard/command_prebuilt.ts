/**
 * Entry of the prebuilt hook bundle (`dist/fiable-guard-hook.js`, built by bundle.ts, run by
 * lib/guard/runtime/prebuilt.ts): command mode, and the setter through which the launcher points the bundle's lazy
 * modules at the source tree (a bundle in dist/ cannot resolve them relative to itself).
 */
export { runCommand } from "./command.ts";
export { setLazyLoader } from "./runtime/lazy.ts";
