/**
 * Writes the Store contract's fixture (a `StoreContents`) into the host's tables, the way
 * the host's own code would store such records: what a host's `runStoreContract` test needs (the contract
 * hands `create` plain records in the API's shape; putting them into your schema is
 * yours to write). Integer keys come from SQLite; the fixture's UUIDs go to `public_id`.
 */
import type { Database } from "bun:sqlite";
import type { StoreContents } from "leaveapi";
import { SCOPE_OF_APPLIES_TO, STATE_OF_STATUS, isoOf } from "./host-reads.ts";
import { insertToken } from "./host-store.ts";

const isoOrNull = (ms: number | null) => (ms === null ? null : isoOf(ms));
const flag = (b: boolean) => (b ? 1 : 0);
const COMPANY = "(select company_no from companies where public_id = ?)";

export function writeFixtureToHostSchema(db: Database, f: StoreContents): void {
  db.transaction(() => {
    for (const o of f.organisations) {
      db.query("insert into companies (public_id, name, api_access, created) values (?, ?, ?, ?)").run(o.id, o.name, flag(o.api_enabled), isoOf(o.created_at));
    }
    for (const c of f.clients) {
      db.query(`insert into leaveapi_clients (client_id, company_no, label, secret_digest, scopes, created_ms, revoked_ms)
          values (?, ${COMPANY}, ?, ?, ?, ?, ?)`).run(c.client_id, c.organisation_id, c.name, c.secret_digest, c.scopes.join(" "), c.created_at, c.revoked_at);
    }
    for (const { digest, grant } of f.tokens) insertToken(db, digest, grant);
    for (const e of f.employees) {
      db.query(`insert into staff (public_id, company_no, given_name, family_name, known_as, title, dept, calendar,
            hired_on, left_on, state, modified, removed) values (?, ${COMPANY}, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(
        e.id,
        e.organisation_id,
        e.first_name,
        e.last_name,
        e.preferred_name,
        e.job_title,
        e.department,
        e.holiday_calendar,
        e.start_date,
        e.leaving_date,
        e.status,
        isoOf(e.updated_at),
        flag(e.deleted),
      );
    }
    for (const t of f.leaveTypes) {
      // The fixture's bookings carry their own updated_at; a kind older than all of them keeps it so.
      db.query(`insert into absence_kind (public_id, company_no, label, category, paid, modified) values (?, ${COMPANY}, ?, ?, ?, ?)`).run(
        t.id,
        t.organisation_id,
        t.name,
        t.category,
        flag(t.is_paid),
        isoOf(0),
      );
    }
    for (const b of f.bookings) {
      db.query(`insert into absences (public_id, staff_no, kind_no, first_day, last_day, first_half, last_half, day_count,
            state, requested, decided, withdrawn, modified, removed)
          values (?, (select staff_no from staff where public_id = ?), (select kind_no from absence_kind where public_id = ?),
            ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(
        b.id,
        b.employee_id,
        b.leave_type_id,
        b.start_date,
        b.end_date,
        b.start_half_day ? b.start_half_period : null,
        b.end_half_day ? b.end_half_period : null,
        b.days,
        STATE_OF_STATUS[b.status],
        isoOrNull(b.requested_at),
        isoOrNull(b.reviewed_at),
        isoOrNull(b.cancelled_at),
        isoOf(b.updated_at),
        flag(b.deleted),
      );
    }
    for (const c of f.closureDays) {
      db.query(`insert into office_closures (company_no, closed_on, title, scope, dept, site, counts_as_leave, modified, removed)
          values (${COMPANY}, ?, ?, ?, ?, ?, ?, ?, ?)`).run(
        c.organisation_id,
        c.date,
        c.name,
        SCOPE_OF_APPLIES_TO[c.applies_to],
        c.department,
        c.location,
        flag(c.deducts_from_leave),
        isoOf(c.updated_at),
        flag(c.deleted),
      );
    }
    for (const h of f.publicHolidays) {
      db.query(`insert into bank_holidays (company_no, calendar, day, name) values (${COMPANY}, ?, ?, ?)`).run(h.organisation_id, h.calendar, h.date, h.name);
    }
  })();
}
