/**
 * The state file of `leaveapi fetch --state FILE`: the `since` the next incremental fetch
 * starts from, and what it was fetched for. A `since` only means something for the same
 * resource and filters (a widened range holds records that never changed since then), so
 * a state file written for anything else is refused rather than silently misread.
 */
import { readFile } from "node:fs/promises";
import { openPartial } from "./exclusive-file.ts";
import { CommandError } from "../cli-kit.ts";

export interface FetchState {
  resource: string;
  filters: Record<string, string | null>;
  since: string;
}

/** The stored state, or null when the file does not exist yet (the first fetch is a full one). */
export async function readState(path: string): Promise<FetchState | null> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new CommandError(`cannot read state file ${path}: ${(error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new CommandError(`state file ${path} is not JSON; delete it to fetch everything again`);
  }
  const state = parsed as Partial<FetchState> | null;
  if (!state || typeof state.resource !== "string" || typeof state.since !== "string" || typeof state.filters !== "object" || state.filters === null) {
    throw new CommandError(`state file ${path} is not a leaveapi fetch state file; delete it to fetch everything again`);
  }
  return state as FetchState;
}

/** Refuses a state written for another resource or other filters. */
export function checkStateMatches(path: string, state: FetchState, resource: string, filters: Record<string, string | null>): void {
  const describe = (r: string, f: Record<string, string | null>) =>
    [
      r,
      ...Object.entries(f)
        .filter(([, v]) => v !== null)
        .map(([k, v]) => `${k}=${v}`),
    ].join(" ");
  if (state.resource !== resource || JSON.stringify(state.filters) !== JSON.stringify(filters)) {
    throw new CommandError(
      `state file ${path} was written for '${describe(state.resource, state.filters)}', not '${describe(resource, filters)}'; use another state file`,
    );
  }
}

/** Replaces the state file in one step (write beside it, then rename), so a crash leaves the old one whole (exclusive-file.ts). */
export async function writeState(path: string, state: FetchState): Promise<void> {
  const partial = await openPartial(path);
  try {
    await partial.handle.writeFile(`${JSON.stringify(state, null, 2)}\n`);
    await partial.handle.close();
  } catch (error) {
    await partial.discard();
    throw error;
  }
  await partial.commit();
}
