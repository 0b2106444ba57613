/**
 * How `leaveapi fetch` writes a file it will rename into place (its output and its state):
 * beside the target, under a name nobody can guess, created exclusively and not through a
 * link (O_CREAT | O_EXCL | O_NOFOLLOW), so that in a shared directory another user cannot
 * plant a symlink there and have HR data written through it to a file of their choosing.
 * The file gets the target's mode when the target is a file already, else 0600 whatever
 * the umask: an output kept private stays private. The rename replaces a link planted at
 * the target itself, never what it points to.
 */
import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { lstat, open, rename, rm, type FileHandle } from "node:fs/promises";

export interface PartialFile {
  handle: FileHandle;
  /** Moves the written file into place; the handle must be closed first. */
  commit(): Promise<void>;
  /** Closes and removes the file. */
  discard(): Promise<void>;
}

async function modeFor(path: string): Promise<number> {
  try {
    const stat = await lstat(path);
    return stat.isFile() ? stat.mode & 0o777 : 0o600;
  } catch {
    return 0o600;
  }
}

export async function openPartial(path: string): Promise<PartialFile> {
  const mode = await modeFor(path);
  const partial = `${path}.partial-${randomBytes(12).toString("hex")}`;
  const handle = await open(partial, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
  // The umask narrows the mode given to open: set it as meant.
  await handle.chmod(mode);
  return {
    handle,
    commit: () => rename(partial, path),
    async discard() {
      await handle.close().catch(() => {});
      await rm(partial, { force: true });
    },
  };
}
