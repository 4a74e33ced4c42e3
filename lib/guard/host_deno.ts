/** The guard's host under Deno: Deno's own API only, so a hook process never starts Deno's node-compat layer. */
import type { HookSignal, Host } from "./host.ts";

/** Writes all of `bytes` to a Deno writer (a pipe may take a large write in parts). */
function writeAll(writer: { writeSync(p: Uint8Array): number }, bytes: Uint8Array): void {
  let written = 0;
  while (written < bytes.length) written += writer.writeSync(bytes.subarray(written));
}

/** The Deno host (touches `Deno` only when a method is called, so the Node bundle can carry it). */
export function denoHost(): Host {
  const encoder = new TextEncoder();
  return {
    env: Deno.env.toObject(),
    args: Deno.args,
    readText: (path) => Deno.readTextFileSync(path),
    readTail(path, bytes) {
      const file = Deno.openSync(path, { read: true });
      try {
        const size = file.statSync().size;
        const length = Math.min(size, bytes);
        file.seekSync(size - length, Deno.SeekMode.Start);
        const buffer = new Uint8Array(length);
        let read = 0;
        while (read < length) {
          const n = file.readSync(buffer.subarray(read));
          if (n === null) break;
          read += n;
        }
        return new TextDecoder().decode(buffer.subarray(0, read));
      } finally {
        file.close();
      }
    },
    appendText(path, text) {
      // One write of the whole line on an O_APPEND descriptor, as node:fs appendFileSync does.
      const file = Deno.openSync(path, { append: true, create: true });
      try {
        writeAll(file, encoder.encode(text));
      } finally {
        file.close();
      }
    },
    makeDir: (path) => Deno.mkdirSync(path, { recursive: true }),
    async readStdin() {
      try {
        return await new Response(Deno.stdin.readable).text();
      } catch {
        return "";
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
