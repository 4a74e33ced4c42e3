/** Finds Debian's Chromium for the browser tests, installing it with apt when missing and we are root. */
import { existsSync } from "node:fs";

/** Where Debian's chromium package puts its launcher. */
export const CHROMIUM = "/usr/bin/chromium";

/** Flags for a quiet, offline headless Chromium; the fresh `--user-data-dir` comes from launchPersistentContext. */
export function chromiumArgs(): string[] {
  return [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ];
}

async function run(cmd: string, args: string[]): Promise<{ ok: boolean; out: string }> {
  try {
    const out = await new Deno.Command(cmd, {
      args,
      stdout: "piped",
      stderr: "piped",
      env: { DEBIAN_FRONTEND: "noninteractive" },
    }).output();
    const dec = new TextDecoder();
    return { ok: out.success, out: (dec.decode(out.stdout) + dec.decode(out.stderr)).slice(-2000) };
  } catch (err) {
    return { ok: false, out: (err as Error).message };
  }
}

/** The Chromium executable path, installing the `chromium` apt package first when it is missing. Throws with what is missing. */
export async function ensureChromium(): Promise<string> {
  if (existsSync(CHROMIUM)) return CHROMIUM;
  if (Deno.uid?.() !== 0) {
    throw new Error(
      `Cannot run the browser tests: ${CHROMIUM} is missing and this user is not root, so apt cannot install it. ` +
        "Run `sudo apt-get install -y chromium` (Debian) and retry.",
    );
  }
  // One line, on stderr so the suites' output on stdout stays as uvu prints it; apt's own output only on failure.
  console.error("Installing Debian's chromium for the browser tests (apt-get install chromium) …");
  const update = await run("apt-get", ["update"]);
  if (!update.ok) {
    throw new Error(
      `Cannot install chromium: apt-get update failed:\n${update.out}\nCheck network access to the Debian mirror.`,
    );
  }
  const install = await run("apt-get", ["install", "-y", "--no-install-recommends", "chromium"]);
  if (!install.ok || !existsSync(CHROMIUM)) {
    throw new Error(
      `Cannot install chromium: apt-get install -y chromium failed:\n${install.out}\nInstall it by hand and retry.`,
    );
  }
  return CHROMIUM;
}
