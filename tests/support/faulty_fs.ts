/**
 * A filesystem for install.ts's tests that fails at the k-th change it is asked to make (a write, rename,
 * removal, folder creation or removal, or flush): either a crash (the process dies there: a write leaves
 * half its bytes, and every later call fails too, reads included) or a full disk (the write leaves half its
 * bytes and throws ENOSPC; the process carries on).
 */
import { diskFs, type InstallFs } from "../../lib/install/fs.ts";

/** What a crash looks like from inside the process: nothing after it runs. */
export class SimulatedCrash extends Error {
  override name = "SimulatedCrash";
}

/** A faulty filesystem and the changes it made (`ops`, one line each). */
export interface FaultyFs extends InstallFs {
  ops: string[];
}

/**
 * Fails the `failAt`-th change (1-based; Infinity: never, to count them). `fault: "enospc"` fails the
 * `failAt`-th write instead, with a full disk.
 */
export function faultyFs(failAt: number, fault: "crash" | "enospc" = "crash"): FaultyFs {
  let dead = false;
  let writes = 0;
  const ops: string[] = [];
  const alive = () => {
    if (dead) throw new SimulatedCrash("the process crashed earlier");
  };
  /** Runs one change unless it is the one to fail. */
  const change = (what: string, run: () => void, torn?: () => void) => {
    alive();
    const isWrite = what.startsWith("write ");
    if (isWrite) writes++;
    const fails = fault === "crash" ? ops.length + 1 === failAt : isWrite && writes === failAt;
    if (fails) {
      torn?.();
      if (fault === "crash") {
        dead = true;
        throw new SimulatedCrash(`crashed at change ${failAt}: ${what}`);
      }
      throw Object.assign(new Error(`ENOSPC: no space left on device, ${what}`), { code: "ENOSPC" });
    }
    run();
    ops.push(what);
  };
  return {
    ops,
    readFile(path) {
      alive();
      return diskFs.readFile(path);
    },
    isDir(path) {
      alive();
      return diskFs.isDir(path);
    },
    mode(path) {
      alive();
      return diskFs.mode(path);
    },
    linkOf(path) {
      alive();
      return diskFs.linkOf(path);
    },
    realpath(path) {
      alive();
      return diskFs.realpath(path);
    },
    symlink(target, path) {
      change(`symlink ${path}`, () => diskFs.symlink(target, path));
    },
    writeFile(path, bytes, mode) {
      change(
        `write ${path}`,
        () => diskFs.writeFile(path, bytes, mode),
        () => diskFs.writeFile(path, bytes.subarray(0, bytes.length >> 1), mode),
      );
    },
    rename(from, to) {
      change(`rename ${from} ${to}`, () => diskFs.rename(from, to));
    },
    remove(path) {
      change(`remove ${path}`, () => diskFs.remove(path));
    },
    mkdir(path) {
      change(`mkdir ${path}`, () => diskFs.mkdir(path));
    },
    rmdir(path) {
      let done = false;
      change(`rmdir ${path}`, () => done = diskFs.rmdir(path));
      return done;
    },
    syncDir(path) {
      change(`sync ${path}`, () => diskFs.syncDir(path));
    },
  };
}
