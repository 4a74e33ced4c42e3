/** The files a harness install wants in a checkout: each harness's module and assets, and registry.py edited. */
import { AGENTS_DIR, type AssetKey, type Harness, HARNESSES } from "./harnesses.ts";
import { InstallRefusal, REGISTRY } from "./checkout.ts";
import { registerHarness } from "./registry.ts";
import type { Desired } from "./plan.ts";

/** Template bytes by file name under templates/, and built assets by key. */
export interface Sources {
  templates: Record<string, Uint8Array>;
  assets: Partial<Record<AssetKey, Uint8Array>>;
}

const ASSET_WHY: Record<AssetKey, string> = {
  guard: "guard bundle for Node >= 20, uploaded to /installed-agent/",
  agent: "fiable-agent bundle for Node >= 20, uploaded to /installed-agent/",
};

/** The desired files for the harnesses, given registry.py's current text. */
export function desiredInstall(
  registry: string,
  sources: Sources,
  harnesses: Harness[] = HARNESSES,
): Desired[] {
  const out: Desired[] = [];
  for (const harness of harnesses) {
    for (const file of harness.files) {
      const path = `${AGENTS_DIR}/${file.to}`;
      const bytes = "template" in file.from
        ? sources.templates[file.from.template]
        : sources.assets[file.from.asset];
      if (!bytes) {
        const what = "template" in file.from
          ? `templates/${file.from.template}`
          : `the ${file.from.asset} asset`;
        throw new InstallRefusal(
          `Cannot install ${harness.name}: ${what} is missing. Run install.ts from a full fiable-agent checkout.`,
        );
      }
      if (out.some((d) => d.path === path)) continue;
      const why = "template" in file.from
        ? `${harness.name} harness module (templates/${file.from.template})`
        : ASSET_WHY[file.from.asset];
      out.push({ path, bytes, owned: true, why });
    }
  }
  const edited = harnesses.reduce((text, h) => registerHarness(text, h), registry);
  const names = harnesses.map((h) => `"${h.name}"`).join(", ");
  out.push({
    path: REGISTRY,
    bytes: new TextEncoder().encode(edited),
    owned: false,
    why: `${names} in IN_TREE_AGENT_IMPORT_PATHS (+ AGENT_ENV_VARS hint)`,
  });
  return out;
}
