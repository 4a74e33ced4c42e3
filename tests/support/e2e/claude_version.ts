/**
 * The one place the tests pin Claude Code: the npm package and one exact version per purpose. The versions live
 * in lib/install/claude_code.ts, because `install experiments` pins the newest of them in every arm.
 */
import { CLAUDE_CODE_VERSION, claudeSpec } from "../../../lib/install/claude_code.ts";

export {
  CLAUDE_CODE_PACKAGE,
  CLAUDE_CODE_VERSION,
  claudeSpec,
  HARBOR_CLAUDE_CODE_VERSION,
  OVERSIZED_RESULT_VERSIONS,
} from "../../../lib/install/claude_code.ts";
/** The bed's `package@version`. */
export const CLAUDE_CODE_SPEC = claudeSpec(CLAUDE_CODE_VERSION);
