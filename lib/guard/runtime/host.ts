/**
 * The runtime under the guard's hook path: files, standard streams, signals and exit, from Deno's own API
 * under Deno and from `node:` modules under Node. Under Deno nothing here loads a `node:` module: the first
 * one costs Deno ≈ 30 ms of node-compat start-up, more than the hook's own work (issue 20). `deno run` of
 * guard.ts gets the Deno host; a Node entry (guard_node.ts, agent_node.ts) installs the Node host with
 * `setHost` before it calls main (host_node.ts is imported only by those entries).
 */
import { denoHost } from "./host_deno.ts";
import type { Host } from "./host_api.ts";

/** A host for a runtime that is neither Deno nor set up: every use says what is missing. */
function missingHost(): Host {
  const missing = (): never => {
    throw new Error("No guard host is set up: a Node entry must call setHost(nodeHost()) before main.");
  };
  return {
    env: {},
    args: [],
    readText: missing,
    readTail: missing,
    readRange: missing,
    readBytes: missing,
    readChunks: missing,
    writeWhole: missing,
    removeFile: missing,
    fileSize: missing,
    modifiedAt: missing,
    listDir: missing,
    appendLine: missing,
    append: missing,
    createNew: missing,
    makeDir: missing,
    readStdin: missing,
    writeOut: missing,
    writeErr: missing,
    timer: missing,
    sleep: missing,
    onceSignal: missing,
    exit: missing,
    setExitCode: missing,
  };
}

/** The host this process runs on: Deno's under Deno, else the one a Node entry set. */
export let host: Host = "Deno" in globalThis ? denoHost() : missingHost();

/** Sets the host (a Node entry, before main). */
export function setHost(next: Host): void {
  host = next;
}

/** Joins a directory and a file name (a trailing slash on the directory is not doubled). */
export function joinPath(dir: string, name: string): string {
  return dir.endsWith("/") ? dir + name : `${dir}/${name}`;
}
