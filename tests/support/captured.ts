/** An entry's main run in-process: its exit code and what it printed on stdout and stderr. */
export async function captured(
  main: (args: string[]) => Promise<number>,
  args: string[],
): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [], err: string[] = [];
  const { log, error } = console;
  console.log = (...a: unknown[]) => out.push(a.join(" "));
  console.error = (...a: unknown[]) => err.push(a.join(" "));
  try {
    return { code: await main(args), out: out.join("\n"), err: err.join("\n") };
  } finally {
    console.log = log;
    console.error = error;
  }
}
