// The crontab parser: its fields, lists, ranges, steps and names, the invalid ones with their reasons, and next()
// across minute, hour, day, month and year boundaries, in UTC.
import { describe, expect, it } from "vitest";
import { CronSchedule, scheduleProblem } from "../../../server/hosting/cron/schedule.ts";

const utc = (text: string) => new Date(`${text}Z`);
const next = (schedule: string, after: string) => CronSchedule.parse(schedule).next(utc(after)).toISOString().slice(0, 16);
/** The first `count` minutes the schedule names after `after`. */
function runs(schedule: string, after: string, count: number): string[] {
  const parsed = CronSchedule.parse(schedule);
  const out: string[] = [];
  for (let at = utc(after); out.length < count; ) {
    at = parsed.next(at);
    out.push(at.toISOString().slice(0, 16));
  }
  return out;
}

describe("cron schedules", () => {
  it("read numbers, *, lists, ranges and steps in each field", () => {
    expect(runs("*/15 * * * *", "2026-03-01T10:07", 3)).toEqual(["2026-03-01T10:15", "2026-03-01T10:30", "2026-03-01T10:45"]);
    expect(runs("5,10 * * * *", "2026-03-01T10:05", 3)).toEqual(["2026-03-01T10:10", "2026-03-01T11:05", "2026-03-01T11:10"]);
    expect(runs("0 9-11 * * *", "2026-03-01T09:00", 3)).toEqual(["2026-03-01T10:00", "2026-03-01T11:00", "2026-03-02T09:00"]);
    expect(runs("0 0-12/6 * * *", "2026-03-01T00:00", 3)).toEqual(["2026-03-01T06:00", "2026-03-01T12:00", "2026-03-02T00:00"]);
    expect(runs("30 18/2 * * *", "2026-03-01T00:00", 3)).toEqual(["2026-03-01T18:30", "2026-03-01T20:30", "2026-03-01T22:30"]);
    expect(runs("0 0 1,15 * *", "2026-03-02T00:00", 2)).toEqual(["2026-03-15T00:00", "2026-04-01T00:00"]);
  });

  it("read month and weekday names in any case, and 7 as Sunday", () => {
    expect(next("0 12 * JAN,jul *", "2026-02-01T00:00")).toBe("2026-07-01T12:00");
    expect(runs("0 8 * * mon-fri", "2026-11-27T09:00", 2)).toEqual(["2026-11-30T08:00", "2026-12-01T08:00"]); // Fri 27 → Mon 30
    expect(next("0 0 * * 7", "2026-11-27T00:00")).toBe("2026-11-29T00:00");
    expect(next("0 0 * * Sun", "2026-11-27T00:00")).toBe("2026-11-29T00:00");
  });

  it("read the @ shorthands", () => {
    expect(next("@hourly", "2026-03-01T10:07")).toBe("2026-03-01T11:00");
    expect(next("@daily", "2026-03-01T10:07")).toBe("2026-03-02T00:00");
    expect(next("@weekly", "2026-11-27T10:07")).toBe("2026-11-29T00:00");
    expect(next("@monthly", "2026-03-01T10:07")).toBe("2026-04-01T00:00");
    expect(next("@yearly", "2026-03-01T10:07")).toBe("2027-01-01T00:00");
  });

  it("run on a day matching either day field when both are restricted (Vixie cron's rule)", () => {
    // The 13th, or any Friday: Friday 2026-11-27, then Sunday 2026-12-13... after Friday 2026-12-04 and 12-11.
    expect(runs("0 0 13 * fri", "2026-11-26T00:00", 4)).toEqual(["2026-11-27T00:00", "2026-12-04T00:00", "2026-12-11T00:00", "2026-12-13T00:00"]);
  });

  it("find the next minute strictly after the given time, across minute, hour, day, month and year boundaries", () => {
    expect(next("* * * * *", "2026-03-01T10:07:00")).toBe("2026-03-01T10:08");
    expect(next("* * * * *", "2026-03-01T10:07:59.999")).toBe("2026-03-01T10:08");
    expect(next("* * * * *", "2026-03-01T10:59:30")).toBe("2026-03-01T11:00");
    expect(next("0 * * * *", "2026-03-01T23:00")).toBe("2026-03-02T00:00");
    expect(next("59 23 * * *", "2026-03-31T23:59")).toBe("2026-04-01T23:59");
    expect(next("0 0 1 * *", "2026-12-15T00:00")).toBe("2027-01-01T00:00");
    expect(next("* * * * *", "2026-12-31T23:59")).toBe("2027-01-01T00:00");
  });

  it("keep to UTC: no daylight-saving shift", () => {
    // Europe and the US change their clocks on these nights; UTC does not.
    expect(runs("30 1 * * *", "2026-03-28T12:00", 2)).toEqual(["2026-03-29T01:30", "2026-03-30T01:30"]);
    expect(runs("30 1 * * *", "2026-10-31T12:00", 2)).toEqual(["2026-11-01T01:30", "2026-11-02T01:30"]);
  });

  it("find February 29 in leap years only", () => {
    expect(runs("0 0 29 2 *", "2026-01-01T00:00", 2)).toEqual(["2028-02-29T00:00", "2032-02-29T00:00"]);
    // 2100 is not a leap year.
    expect(next("0 0 29 2 *", "2096-03-01T00:00")).toBe("2104-02-29T00:00");
  });

  it("skip the months without a 31st for `0 0 31 * *`", () => {
    expect(runs("0 0 31 * *", "2026-01-31T00:00", 4)).toEqual(["2026-03-31T00:00", "2026-05-31T00:00", "2026-07-31T00:00", "2026-08-31T00:00"]);
  });

  it("say what is wrong with an invalid schedule", () => {
    const cases: [string, RegExp][] = [
      ["", /five fields.*this has 0/],
      ["* * * *", /five fields.*this has 4/],
      ["* * * * * *", /this has 6/],
      ["60 * * * *", /minute field "60" holds 60: use 0–59/],
      ["* 24 * * *", /hour field "24" holds 24: use 0–23/],
      ["* * 0 * *", /day of month field "0" holds 0: use 1–31/],
      ["* * * 13 *", /month field "13" holds 13: use 1–12/],
      ["* * * * 8", /day of week field "8" holds 8: use 0–7/],
      ["*/0 * * * *", /minute field "\*\/0" has a step of 0/],
      ["10-5 * * * *", /range that runs backwards/],
      ["* * * foo *", /holds "foo", which is neither a number nor a month name/],
      ["* * * * funday", /neither a number nor a day of week name/],
      ["1,,2 * * * *", /minute field "1,,2" is not a number/],
      ["-1 * * * *", /minute field "-1" is not a number/],
      ["@reboot", /"@reboot" is not one of @yearly/],
      ["0 0 30 2 *", /never comes/],
      ["0 0 31 4,6,9,11 *", /never comes/],
    ];
    for (const [schedule, reason] of cases) {
      expect(scheduleProblem(schedule), schedule).toMatch(reason);
    }
    expect(scheduleProblem("*/5 * * * *")).toBeNull();
  });

  it("says whether a minute matches", () => {
    const every5 = CronSchedule.parse("*/5 * * * *");
    expect(every5.matches(utc("2026-03-01T10:05:00"))).toBe(true);
    expect(every5.matches(utc("2026-03-01T10:05:42"))).toBe(true);
    expect(every5.matches(utc("2026-03-01T10:06:00"))).toBe(false);
  });
});
