/**
 * Valid cursors to load with: the benchmark walks the pages once, keeping every cursor,
 * so that the load then lands on random pages rather than one hot page (a cursor is
 * signed, so it cannot be made up). Cursors do not depend on `limit`, so a walk with a
 * small limit gives many starting points for pages of 100.
 */
import { mulberry32 } from "../../scripts/demo/demo-data.ts";
import type { Credentials } from "./dataset.ts";

export async function fetchToken(url: string, client: Credentials): Promise<string> {
  const res = await fetch(`${url}/v1/oauth/token`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Authorization: `Basic ${btoa(`${client.id}:${client.secret}`)}` },
    body: "grant_type=client_credentials",
  });
  if (res.status !== 200) throw new Error(`token request answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

interface Page {
  data: { id: string }[];
  next_cursor: string | null;
}

async function getPage(url: string, token: string, path: string): Promise<Page> {
  const res = await fetch(url + path, { headers: { Authorization: `Bearer ${token}` } });
  if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as Page;
}

/** Every cursor of a listing walked `walkLimit` records at a time, the first page (no cursor) included as null. */
async function cursorsOf(url: string, token: string, base: string, walkLimit: number, max: number): Promise<(string | null)[]> {
  const cursors: (string | null)[] = [null];
  let page = await getPage(url, token, `${base}&limit=${walkLimit}`);
  while (page.next_cursor && cursors.length < max) {
    cursors.push(page.next_cursor);
    page = await getPage(url, token, `${base}&limit=${walkLimit}&cursor=${page.next_cursor}`);
  }
  return cursors;
}

const withCursor = (path: string, cursor: string | null) => (cursor === null ? path : `${path}&cursor=${cursor}`);

/** Employees pages of 100 from random valid positions. */
export async function employeePaths(url: string, token: string, positions: number): Promise<string[]> {
  const cursors = await cursorsOf(url, token, "/v1/employees?", 10, positions);
  return cursors.map((c) => withCursor("/v1/employees?limit=100", c));
}

export interface Window {
  from: string;
  to: string;
}

/** `count` 31-day windows with seeded random starts between `first` and `last`. */
export function leaveWindows(count: number, first: string, last: string, seed = 3): Window[] {
  const rand = mulberry32(seed);
  const start = Date.parse(first);
  const days = Math.round((Date.parse(last) - start) / 86_400_000) - 30;
  return Array.from({ length: count }, () => {
    const from = start + Math.floor(rand() * days) * 86_400_000;
    const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    return { from: iso(from), to: iso(from + 30 * 86_400_000) };
  });
}

/** Leave pages of 100 over the windows: every first page, and deep pages from each window's cursors. */
export async function leavePaths(url: string, token: string, windows: Window[], perWindow: number): Promise<string[]> {
  const paths: string[] = [];
  for (const w of windows) {
    const base = `/v1/leave-requests?from=${w.from}&to=${w.to}`;
    const cursors = await cursorsOf(url, token, `${base}`, 100, perWindow);
    for (const c of cursors) paths.push(withCursor(`${base}&limit=100`, c));
  }
  return paths;
}
