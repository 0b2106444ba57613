/**
 * The maps of two HR systems' exports, as an admin would write them (docs/cli.md, "Other
 * systems' exports"): a BambooHR-style employee report (`;`, US dates, statuses as words,
 * two columns not ours) and a Personio-style workbook (German headers, `DD.MM.YYYY`, the
 * sheet "Mitarbeiter"). The tests that import such exports share them.
 */

export const BAMBOO_HEADER = "Employee #;First Name;Last Name;Job Title;Department;Status;Hire Date;Termination Date;Location;Work Email";

export const BAMBOO_MAP = {
  columns: {
    "Employee #": "external_id",
    "First Name": "first_name",
    "Last Name": "last_name",
    "Job Title": "job_title",
    Department: "department",
    Status: "status",
    "Hire Date": "start_date",
    "Termination Date": "leaving_date",
    Location: null,
  },
  values: { status: { Active: "active", Inactive: "terminated" } },
  dates: "MM/DD/YYYY",
  defaults: { holiday_calendar: "US" },
  ignore_unmapped: true,
};

export const PERSONIO_HEADER = ["Personalnummer", "Vorname", "Nachname", "Position", "Abteilung", "Status", "Eintrittsdatum", "Austrittsdatum"];

export const PERSONIO_MAP = {
  columns: {
    Personalnummer: "external_id",
    Vorname: "first_name",
    Nachname: "last_name",
    Position: "job_title",
    Abteilung: "department",
    Status: "status",
    Eintrittsdatum: "start_date",
    Austrittsdatum: "leaving_date",
  },
  values: { status: { aktiv: "active", inaktiv: "terminated" } },
  dates: "DD.MM.YYYY",
  defaults: { holiday_calendar: "DE-BY" },
  sheet: "Mitarbeiter",
};
