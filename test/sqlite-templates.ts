/**
 * Fresh, migrated SQLite stores for the tests, without migrating (or loading) each one.
 * Migrating a new database runs every migration (about 55 ms on bun:sqlite, more on
 * node:sqlite and under load) and loading the contract's standard fixture through the
 * import writer as much again (twice that on node:sqlite); the store contracts and the
 * handler suites open a store per test, so that was most of `npm run test:unit`'s time.
 *
 * So the first store a process asks for is migrated from empty exactly as the product
 * migrates, by the driver under test, and its bytes kept; the first asked for with given
 * contents is a copy of that with the contents written by the store itself, and kept too.
 * Every later one is a copy: in memory (`deserialize`), or written to a new file that the
 * product's opener then opens as it opens any database it migrated before. The tokens
 * database (adapters/sql/sqlite-store.ts) is copied beside it: as a file beside a file,
 * row by row into the one in memory that the opener attaches.
 *
 * Only for tests about what a migrated store does. The migration tests run migrations
 * themselves (test/*-migration.test.ts, migrations-frozen.pg.test.ts).
 */
import { Database } from "bun:sqlite";
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { DatabaseSync } from "node:sqlite";
import { openSqliteStore, sqliteStoreOn } from "../adapters/bun/sqlite.ts";
import { nodeSqliteStoreOn, openNodeSqliteStore } from "../adapters/node/sqlite.ts";
import type { SqlAdminStore } from "../adapters/sql/sql-admin-store.ts";
import { configureSqlite, tokensFileOf } from "../adapters/sql/sqlite-store.ts";
import { type ContractFixture, writeFixture } from "../testing/contract-fixture.ts";

const MEMORY = ":memory:";

/** What a store holds besides its schema, written once by the store and copied after. */
export interface TemplateContents {
  /** Names the contents: the same key, the same contents. */
  key: string;
  write: (store: SqlAdminStore) => Promise<void>;
}

/** The contract's fixture as contents (testing/contract-fixture.ts, `writeFixture`). */
export function fixtureContents(fixture: ContractFixture): TemplateContents {
  return { key: JSON.stringify(fixture), write: (store) => writeFixture(store, fixture) };
}

/** The part of bun:sqlite's Database and node:sqlite's DatabaseSync used here. */
interface RawDatabase {
  exec(sql: string): unknown;
  prepare(sql: string): { all(...params: never[]): unknown[]; run(...params: never[]): unknown };
  serialize(name?: string): Uint8Array;
}

type Row = Record<string, unknown>;

interface Image {
  main: Uint8Array;
  tokens: Uint8Array;
  tokenRows: { table: string; rows: Row[] }[];
}

interface Driver<D extends RawDatabase> {
  /** A database in memory: empty, or a copy of `bytes`. */
  open: (bytes?: Uint8Array) => D;
  store: (database: D, options: { now?: () => number }) => SqlAdminStore;
  openFile: (filename: string, options: { now?: () => number }) => SqlAdminStore;
}

function snapshot(database: RawDatabase): Image {
  const tables = database.prepare("select name from tokens.sqlite_master where type = 'table'").all() as { name: string }[];
  return {
    main: database.serialize("main"),
    tokens: database.serialize("tokens"),
    tokenRows: tables.map(({ name }) => ({ table: name, rows: database.prepare(`select * from tokens."${name}"`).all() as Row[] })),
  };
}

function templates<D extends RawDatabase>(driver: Driver<D>) {
  const images = new Map<string, Promise<Image>>();

  /** A store in memory on a copy of `image` (or an empty database), set up as the opener sets one up. */
  const inMemory = (image: Image | undefined, options: { now?: () => number }) => {
    const database = driver.open(image?.main);
    configureSqlite(database, { filename: MEMORY });
    for (const { table, rows } of image?.tokenRows ?? []) {
      for (const row of rows) {
        const columns = Object.keys(row);
        const insert = `insert into tokens."${table}" (${columns.map((c) => `"${c}"`).join(", ")}) values (${columns.map(() => "?").join(", ")})`;
        database.prepare(insert).run(...(Object.values(row) as never[]));
      }
    }
    return { database, store: driver.store(database, options) };
  };

  const image = (contents: TemplateContents | undefined): Promise<Image> => {
    const key = contents?.key ?? "";
    let made = images.get(key);
    if (made === undefined) {
      made = (async () => {
        const { database, store } = contents === undefined ? inMemory(undefined, {}) : inMemory(await image(undefined), {});
        try {
          await (contents === undefined ? store.migrate() : contents.write(store));
          return snapshot(database);
        } finally {
          await store.close();
        }
      })();
      images.set(key, made);
    }
    return made;
  };

  return {
    /** A migrated store in memory holding `contents` (else nothing), as the opener and `migrate()` give. */
    memory: async (options: { now?: () => number; contents?: TemplateContents } = {}) => inMemory(await image(options.contents), options).store,
    /** The same at `filename` (a new file), opened by the product's opener. */
    file: async (filename: string, options: { now?: () => number; contents?: TemplateContents } = {}) => {
      const { main, tokens } = await image(options.contents);
      writeFileSync(filename, main, { flag: "wx" });
      writeFileSync(tokensFileOf(filename), tokens, { flag: "wx" });
      return driver.openFile(filename, options);
    },
  };
}

/** bun:sqlite, as adapters/bun/sqlite.ts opens it. */
export const bunSqliteTemplates = templates<Database>({
  open: (bytes) => (bytes ? Database.deserialize(bytes, { strict: true }) : new Database(MEMORY, { create: true, strict: true })),
  store: (database, { now }) => sqliteStoreOn(database, { filename: MEMORY, now }),
  openFile: (filename, { now }) => openSqliteStore({ filename, now }),
});

/** node:sqlite, loaded as adapters/node/sqlite.ts loads it: when first used, not on import. */
export const nodeSqliteTemplates = templates<DatabaseSync>({
  open: (bytes) => {
    const { DatabaseSync } = createRequire(import.meta.url)("node:sqlite") as typeof import("node:sqlite");
    const database = new DatabaseSync(MEMORY);
    if (bytes) database.deserialize(bytes);
    return database;
  },
  store: (database, { now }) => nodeSqliteStoreOn(database, { filename: MEMORY, now }),
  openFile: (filename, { now }) => openNodeSqliteStore({ filename, now }),
});
