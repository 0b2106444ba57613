/**
 * `leaveapi serve`: the HTTP API on Bun.serve, over the store the global options name,
 * with the request log, Prometheus metrics, TLS, a trusted proxy's client address, worker
 * processes and a graceful shutdown (scripts/serve/). Settings: scripts/serve/settings.ts.
 */
import packageJson from "../../package.json" with { type: "json" };
import type { Server } from "bun";
import { createHandler, type RequestLogEntry } from "../../server/handler.ts";
import { sqlContextOf, type SqlAdminStore } from "../../adapters/sql/sql-admin-store.ts";
import { CommandError, UsageError, parseCommandArgs, type Command, type CommandContext } from "../cli-kit.ts";
import { locateStore, openMigratedStore } from "../open-store.ts";
import { prepareDemo } from "../serve/demo.ts";
import { createApiFetch, createMetricsFetch } from "../serve/front.ts";
import { baseUrlOf, listen, ListenError, type BunFetch, type ListenOptions } from "../../adapters/bun/serve.ts";
import { createLogger, writesText, type Logger } from "../serve/logger.ts";
import { createMetrics, type Metrics } from "../serve/metrics.ts";
import { GATHER, SNAPSHOT, gatherFromParent, gatherFromWorkers } from "../serve/worker-metrics.ts";
import { SERVE_FLAGS, resolveServeSettings, serveHelp, type ServeSettings } from "../serve/settings.ts";
import { drainServers, nextStopSignal, type StopSignal } from "../serve/shutdown.ts";
import { copyControlsRegularly, scrubOwedRegularly, sweepDeletionsRegularly, sweepRateEventsRegularly } from "../serve/housekeeping.ts";
import { copyControlsToDataFile } from "../../adapters/sql/access-controls.ts";
import { startWatchdog, type Watchdog } from "../serve/watchdog.ts";
import { reloadTlsOnHangup } from "../serve/tls-reload.ts";
import { startWebhookSender, type WebhookSender } from "../serve/webhook-sender.ts";
import { webhooksOf } from "../../adapters/sql/webhook-queries.ts";
import { createHolidayWorker, warmHolidays, type HolidayWorker } from "../../adapters/holiday-worker.ts";
import { SERVE_ENCODERS } from "../../adapters/zlib-encoders.ts";
import { readDocsScript } from "../../adapters/bun/docs-script-file.ts";
import { nodeHmacSha256, nodeSha256Hex } from "../../adapters/node-crypto.ts";
import { connectToParent, reportReady, startWorkers, workerRole, type WorkerPool, type WorkerRole } from "../serve/workers.ts";

const USAGE =
  "leaveapi serve [--port 8080] [--host 127.0.0.1] [--demo] [--public-url URL] [--workers N|auto] [--metrics on|off|HOST:PORT] [--tls-cert FILE --tls-key FILE] [--trust-proxy] ...";
/** How much longer than its own drain the parent waits for its workers before killing them. */
const WORKER_GRACE_MS = 5000;

function resolveSettings(ctx: CommandContext): ServeSettings {
  const { values } = parseCommandArgs(ctx.args, SERVE_FLAGS, USAGE);
  try {
    return resolveServeSettings(values, ctx.io.env);
  } catch (error) {
    if (error instanceof UsageError) throw new UsageError(`${error.message}\nusage: ${USAGE}`);
    throw error;
  }
}

interface Running {
  stopSignal: Promise<StopSignal>;
  servers: Server<undefined>[];
  pool: WorkerPool | undefined;
  logger: Logger;
  store: SqlAdminStore;
  holidays: HolidayWorker;
  watchdog: Watchdog | undefined;
  webhooks?: WebhookSender;
  /** A store of the primary alone, for the notification sender, when the reads go to a replica. */
  closeAlso?: SqlAdminStore;
}

/** `store`, or, when its reads go to a replica (`--database-read-url`), a store on the primary alone. */
function primaryStoreFor(ctx: CommandContext, store: SqlAdminStore): SqlAdminStore {
  const env = { ...ctx.io.env, DATABASE_READ_URL: undefined };
  if (ctx.global.databaseReadUrl === undefined && !ctx.io.env.DATABASE_READ_URL) return store;
  return locateStore({ ...ctx.global, databaseReadUrl: undefined }, env).open();
}

/**
 * Serves until SIGTERM/SIGINT (or, in the parent, until a worker dies: then everything stops
 * and the exit code is 1, so the service manager restarts the whole set), then drains the
 * listeners, waits for the workers and closes the store.
 */
async function runUntilStopped(settings: ServeSettings, running: Running): Promise<void> {
  const { servers, pool, logger, store } = running;
  const never = new Promise<never>(() => {});
  const cause = await Promise.race([
    running.stopSignal.then((signal) => ({ signal, workerCode: undefined })),
    (pool?.failed ?? never).then((workerCode) => ({ signal: "SIGTERM" as const, workerCode })),
  ]);
  logger.event(
    "info",
    "shutdown",
    cause.workerCode === undefined ? `${cause.signal}: finishing in-flight requests` : `a worker exited (code ${cause.workerCode}): stopping`,
  );
  const workersDone = pool?.stop(cause.signal, settings.shutdownTimeoutMs + WORKER_GRACE_MS);
  const drained = await drainServers(servers, settings.shutdownTimeoutMs);
  if (!drained) logger.event("warn", "shutdown_timeout", `requests still open after ${settings.shutdownTimeoutMs} ms were cut off`);
  const workersClean = (await workersDone) ?? true;
  await running.webhooks?.stop();
  await running.closeAlso?.close();
  await running.watchdog?.stop();
  await running.holidays.close();
  await store.close();
  logger.event("debug", "stopped", "stopped");
  if (cause.workerCode !== undefined) throw new CommandError(`a worker process exited unexpectedly (code ${cause.workerCode}); all stopped`);
  if (!workersClean) throw new CommandError("a worker process did not stop cleanly");
}

/** `listen`, with a listener that cannot be opened reported as the command's failure (exit 1). */
function listenOrFail(options: ListenOptions): ReturnType<typeof listen> {
  try {
    return listen(options);
  } catch (error) {
    if (error instanceof ListenError) throw new CommandError(error.message);
    throw error;
  }
}

/** Opens the API listener (first in `running.servers`) and the metrics one; returns the API listener's options. */
function openListeners(settings: ServeSettings, role: WorkerRole | undefined, running: Running, fetches: { api: BunFetch; metrics: BunFetch }): ListenOptions {
  const reusePort = role !== undefined || settings.workers > 1;
  const { hostname, port, tls } = settings;
  const api: ListenOptions = { hostname, port: role?.port ?? port, tls, reusePort, idleTimeoutSeconds: settings.idleTimeoutSeconds, fetch: fetches.api };
  running.servers.push(listenOrFail(api));
  // A separate metrics address is the parent's alone: it answers with every worker's sum.
  if (settings.metrics.kind === "separate" && !role) {
    running.servers.push(listenOrFail({ hostname: settings.metrics.hostname, port: settings.metrics.port, reusePort: false, fetch: fetches.metrics }));
  }
  return api;
}

/** A worker: answers the parent's questions, sums every process's metrics through it, says it is ready. */
function joinParent(role: WorkerRole, metrics: Metrics, logger: Logger): void {
  const parent = connectToParent(async (method) => (method === SNAPSHOT ? metrics.snapshot() : undefined));
  if (parent) metrics.aggregateWith(() => gatherFromParent(metrics, parent));
  logger.event("debug", "worker_listening", `worker ${role.index} listening`, { worker: role.index });
  reportReady();
}

/** The first process: seeds the demo once, starts the other workers, then says where it serves. */
async function startAsParent(ctx: CommandContext, settings: ServeSettings, running: Running, metrics: Metrics): Promise<void> {
  const [api, metricsServer] = running.servers;
  const baseUrl = baseUrlOf(settings.hostname, api!.port!, settings.tls !== undefined);
  if (settings.demo) await prepareDemo(ctx, running.store, baseUrl);
  if (settings.workers > 1) {
    const gather = () => gatherFromWorkers(metrics, pool);
    const pool = startWorkers(settings.workers - 1, api!.port!, async (method) => (method === GATHER ? gather() : undefined));
    running.pool = pool;
    metrics.aggregateWith(gather);
    await pool.ready;
  }
  const location = locateStore(ctx.global, ctx.io.env);
  const metricsUrl =
    metricsServer && settings.metrics.kind === "separate" ? `${baseUrlOf(settings.metrics.hostname, metricsServer.port!, false)}/metrics` : undefined;
  // The start line keeps its wording in JSON too (as `message`): scripts wait for `leaveapi serving URL `.
  running.logger.announce(
    "listening",
    `leaveapi serving ${baseUrl} on ${location.kind} ${location.label} with ${settings.workers} process(es)${metricsUrl ? `; metrics on ${metricsUrl}` : ""}`,
    { url: baseUrl, store: location.kind, processes: settings.workers, ...(metricsUrl ? { metrics_url: metricsUrl } : {}) },
  );
}

async function abandon(settings: ServeSettings, running: Running): Promise<void> {
  await running.pool?.stop("SIGTERM", settings.shutdownTimeoutMs);
  await Promise.all(running.servers.map((server) => server.stop(true)));
  await running.watchdog?.stop();
  await running.holidays.close();
  await running.store.close();
}

export const serveCommand: Command = {
  name: "serve",
  usage: USAGE,
  help: serveHelp(USAGE),
  async run(ctx) {
    const settings = resolveSettings(ctx);
    // Listening for the stop signals before anything else, so that one arriving during start-up still stops cleanly.
    const stopSignal = nextStopSignal();
    const role = workerRole(ctx.io.env);
    const location = locateStore(ctx.global, ctx.io.env);
    if (settings.workers > 1 && location.kind === "sqlite" && location.label === ":memory:") {
      throw new UsageError("--workers above 1 needs a database file or Postgres: each process would get its own :memory: database");
    }
    const logger = createLogger({
      level: settings.logLevel,
      format: settings.logFormat,
      isTty: Boolean(process.stdout.isTTY),
      write: ctx.io.log ?? ctx.io.out,
      writeAnnouncement: ctx.io.err,
    });
    const metrics = createMetrics();
    const log = (entry: RequestLogEntry) => {
      logger.request(entry);
      metrics.observe(entry);
    };
    const store = await openMigratedStore(ctx);
    // Public holidays are worked out in a thread of their own: a lunar calendar-year takes
    // long enough to compute (bench/RESULTS.md, "Holiday calendar-years") that it must not
    // stall every other request.
    const holidays = createHolidayWorker();
    // In the background: the first holiday request of the likeliest years needs no computing.
    void warmHolidays(holidays.source, store, Date.now(), holidays.prefetch).catch(() => undefined);
    const handler = createHandler({
      store,
      log,
      issuer: settings.publicUrl,
      publicHolidays: holidays.source,
      deletionRetentionDays: settings.deletionRetentionDays,
      readRateLimit: { perSecond: settings.readRateLimit },
      encoders: SERVE_ENCODERS,
      docsScriptBytes: readDocsScript,
      hmacSha256: nodeHmacSha256,
      sha256Hex: nodeSha256Hex,
      // Its holiday dataset is locked to it: an upgrade changes every ETag (docs/api.md, "Conditional reads").
      release: `leaveapi ${packageJson.version}`,
    });
    const running: Running = { stopSignal, servers: [], pool: undefined, logger, store, holidays, watchdog: undefined };
    const metricsHere = settings.metrics.kind === "on";
    try {
      const apiListener = openListeners(settings, role, running, {
        api: createApiFetch({ handler, metrics, metricsHere, trustProxy: settings.trustProxy, log }),
        metrics: createMetricsFetch(metrics, log),
      });
      if (role) joinParent(role, metrics, logger);
      else await startAsParent(ctx, settings, running, metrics);
      reloadTlsOnHangup({
        servers: running.servers,
        index: 0,
        listenOptions: apiListener,
        logger,
        forward: () => running.pool?.signal("SIGHUP"),
        until: stopSignal,
      });
      // Started once serving: seeding the demo may legitimately keep the loop busy for a while.
      if (settings.watchdogMs > 0) {
        running.watchdog = startWatchdog({
          stallMs: settings.watchdogMs,
          format: writesText(settings.logFormat, Boolean(process.stdout.isTTY)) ? "text" : "json",
        });
      }
    } catch (error) {
      await abandon(settings, running);
      throw error;
    }
    // Old rate-limit events and tombstones, by the parent alone: its workers share its database.
    if (!role) {
      sweepRateEventsRegularly({ store, logger, until: stopSignal });
      sweepDeletionsRegularly({ store, logger, retentionDays: settings.deletionRetentionDays, until: stopSignal });
      scrubOwedRegularly({ store, logger, until: stopSignal });
      copyControlsRegularly({ copy: () => copyControlsToDataFile(sqlContextOf(store), 0), logger, until: stopSignal });
      // The change notifications, sent by the first process only (docs/api.md, "Change
      // notifications"). They decide from the primary: a replica that lagged would find
      // nothing changed yet, and the event would be lost.
      const primary = primaryStoreFor(ctx, store);
      if (primary !== store) running.closeAlso = primary;
      running.webhooks = startWebhookSender({
        store: primary,
        webhooks: webhooksOf(store),
        logger,
        counted: metrics.delivery,
        mac: nodeHmacSha256,
        retryBaseMs: settings.webhookRetryMs,
      });
    }
    await runUntilStopped(settings, running);
  },
};
