/** The guard's host under Deno: Deno's own API only, so a hook process never starts Deno's node-compat layer. */
import type { HookSignal, Host } from "./host_api.ts";

/** Writes all of `bytes` to a Deno writer (a pipe may take a large write in parts). */
function writeAll(writer: { writeSync(p: Uint8Array): number }, bytes: Uint8Array): void {
  let written = 0;
  while (written < bytes.length) written += writer.writeSync(bytes.subarray(written));
}

/** `bytes` bytes of a file from byte `start` (fewer when the file ends first). */
function readBytes(path: string, start: number, bytes: number): Uint8Array {
  const file = Deno.openSync(path, { read: true });
  try {
    file.seekSync(start, Deno.SeekMode.Start);
    const buffer = new Uint8Array(bytes);
    let read = 0;
    while (read < bytes) {
      const n = file.readSync(buffer.subarray(read));
      if (n === null) break;
      read += n;
    }
    return buffer.subarray(0, read);
  } finally {
    file.close();
  }
}

/** `bytes` bytes of a file from byte `start`, decoded as UTF-8 (fewer when the file ends first). */
function readRange(path: string, start: number, bytes: number): string {
  return new TextDecoder().decode(readBytes(path, start, bytes));
}

/** The Deno host (touches `Deno` only when a method is called, so the Node bundle can carry it). */
export function denoHost(): Host {
  const encoder = new TextEncoder();
  return {
    // Read when first asked: a process without --allow-env (the dashboard's figures child imports the
    // ledger module) must still load this module.
    get env() {
      let env: Record<string, string | undefined>;
      try {
        env = Deno.env.toObject();
      } catch {
        env = {};
      }
      Object.defineProperty(this, "env", { value: env });
      return env;
    },
    args: Deno.args,
    readText: (path) => Deno.readTextFileSync(path),
    readTail(path, bytes) {
      const size = Deno.statSync(path).size;
      return readRange(path, size - Math.min(size, bytes), bytes);
    },
    readRange,
    readBytes,
    writeWhole(path, data) {
      const temp = `${path}.${Deno.pid}.tmp`;
      Deno.writeFileSync(temp, typeof data === "string" ? encoder.encode(data) : data, { mode: 0o644 });
      Deno.renameSync(temp, path);
    },
    removeFile: (path) => Deno.removeSync(path),
    fileSize: (path) => Deno.statSync(path).size,
    appendText(path, text) {
      // One write of the whole line on an O_APPEND descriptor, as node:fs appendFileSync does.
      const file = Deno.openSync(path, { append: true, create: true, mode: 0o644 });
      const bytes = encoder.encode(text);
      try {
        writeAll(file, bytes);
      } finally {
        file.close();
      }
      return bytes.length;
    },
    makeDir: (path) => Deno.mkdirSync(path, { recursive: true }),
    async readStdin(push) {
      // Plain reads, not `Deno.stdin.readable`: setting up the web stream costs a hook ≈ 10 ms, reading
      // ≈ 0.4 ms. Still asynchronous, so the time budget runs while a terminal or a slow writer holds it.
      const buffer = new Uint8Array(256 * 1024);
      try {
        for (;;) {
          const n = await Deno.stdin.read(buffer);
          if (n === null) break;
          if (n > 0) push(buffer.slice(0, n));
        }
      } catch {
        // A stdin that errors mid-read gives what was read.
      }
    },
    writeOut: (text) => writeAll(Deno.stdout, encoder.encode(text)),
    writeErr(text) {
      try {
        writeAll(Deno.stderr, encoder.encode(text));
      } catch {
        // stderr closed: nothing to tell, and the hook must still answer.
      }
    },
    timer(ms, listener) {
      let live = true;
      AbortSignal.timeout(ms).addEventListener("abort", () => live && listener(), { once: true });
      return () => {
        live = false;
      };
    },
    sleep: (ms) =>
      new Promise((resolve) =>
        AbortSignal.timeout(ms).addEventListener("abort", () => resolve(), { once: true })
      ),
    onceSignal(signal: HookSignal, listener) {
      const once = () => {
        Deno.removeSignalListener(signal, once);
        listener();
      };
      Deno.addSignalListener(signal, once);
    },
    exit: (code) => Deno.exit(code),
    setExitCode(code) {
      Deno.exitCode = code;
    },
  };
}
