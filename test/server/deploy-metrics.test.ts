/**
 * The shipped Prometheus rules and Grafana dashboard: the rules pass `promtool check rules`
 * (Debian's `prometheus` package), and every metric their PromQL names is one the console really
 * exports, read from a real scrape of GET /api/metrics.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as metrics from "@/app/api/metrics/route";
import { sharedUrls } from "../masters";
import { call, startTestConsole, type TestConsole } from "./helpers";

const RULES = "deploy/prometheus/alerts.yml";
const DASHBOARD = "deploy/grafana/redlock-console.json";
/** Series Prometheus makes itself for every target. */
const PROMETHEUS_OWN = new Set(["up"]);
const KEYWORDS = new Set([
  "by",
  "without",
  "on",
  "ignoring",
  "group_left",
  "group_right",
  "and",
  "or",
  "unless",
  "bool",
  "offset",
  "inf",
  "nan",
]);

/** Metric names in a PromQL expression: identifiers that are not functions, keywords, labels or literals. */
function metricNamesIn(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, " ") // string literals
    .replace(/\{[^}]*\}/g, " ") // label matchers
    .replace(/\[[^\]]*\]/g, " ") // ranges, $__rate_interval
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, " ") // label lists
    .replace(/\$\w+/g, " "); // Grafana variables
  const names = [...stripped.matchAll(/(?<![\w.])([A-Za-z_:][\w:]*)(\s*\()?/g)]
    .filter((match) => match[2] === undefined && !KEYWORDS.has(match[1]!.toLowerCase()))
    .map((match) => match[1]!);
  return [...new Set(names)];
}

function ruleExpressions(): string[] {
  const text = readFileSync(RULES, "utf8");
  const exprs = [...text.matchAll(/^\s*expr:\s*(.+)$/gm)].map((match) => match[1]!.trim());
  // One-line expressions only: a folded one would escape this check.
  expect(exprs.length).toBe([...text.matchAll(/^\s*- alert:/gm)].length);
  return exprs;
}

interface Panel {
  title: string;
  targets?: { expr: string }[];
  panels?: Panel[];
}

function dashboardExpressions(): string[] {
  const dashboard = JSON.parse(readFileSync(DASHBOARD, "utf8")) as {
    panels: Panel[];
    templating: { list: { query?: unknown }[] };
  };
  const fromPanels = (panels: Panel[]): string[] =>
    panels.flatMap((panel) => [
      ...(panel.targets ?? []).map((target) => target.expr),
      ...fromPanels(panel.panels ?? []),
    ]);
  const queries = dashboard.templating.list
    .map((variable) => variable.query)
    .filter((query): query is string => typeof query === "string" && query.includes("("));
  return [
    ...fromPanels(dashboard.panels),
    ...queries.map((query) => query.replace(/^label_values\((.*),\s*\w+\)$/, "$1")),
  ];
}

let tc: TestConsole;
let exported: Set<string>;

beforeAll(async () => {
  tc = startTestConsole(sharedUrls());
  const scrape = await call(metrics.GET, "/api/metrics");
  expect(scrape.status).toBe(200);
  exported = new Set();
  for (const [, name, type] of scrape.text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    exported.add(name!);
    if (type === "histogram")
      for (const suffix of ["_bucket", "_sum", "_count"]) exported.add(`${name}${suffix}`);
  }
});

afterAll(async () => {
  await tc.close();
});

describe("shipped Prometheus rules and Grafana dashboard", () => {
  it("pass promtool check rules", () => {
    const result = spawnSync("promtool", ["check", "rules", RULES], { encoding: "utf8" });
    expect(result.error, "promtool (Debian package prometheus) must be installed").toBeUndefined();
    expect(result.status, `${result.stdout}${result.stderr}`).toBe(0);
    expect(result.stdout).toMatch(/SUCCESS: \d+ rules found/);
  });

  it("finds metric names in PromQL, not functions, labels or variables", () => {
    expect(
      metricNamesIn(
        'histogram_quantile(0.99, sum by (le, node) (rate(a_bucket{node=~"x"}[$__rate_interval])))',
      ),
    ).toEqual(["a_bucket"]);
    expect(metricNamesIn("b < c and on() d offset 5m")).toEqual(["b", "c", "d"]);
  });

  it("name only metrics the console exports", () => {
    const used = [...ruleExpressions(), ...dashboardExpressions()].flatMap(metricNamesIn);
    expect(used.length).toBeGreaterThan(20);
    const unknown = [...new Set(used)].filter(
      (name) => !exported.has(name) && !PROMETHEUS_OWN.has(name),
    );
    expect(unknown).toEqual([]);
  });

  it("cover the ownership gauges, node health and quorum", () => {
    const used = new Set([...ruleExpressions(), ...dashboardExpressions()].flatMap(metricNamesIn));
    for (const name of [
      "redlock_console_long_held_locks",
      "redlock_console_oldest_lock_age_seconds",
      "redlock_console_waiters",
      "redlock_console_oldest_wait_seconds",
      "redlock_console_node_up",
      "redlock_console_nodes_up",
      "redlock_console_quorum_size",
      "redlock_console_locks",
    ])
      expect(used.has(name), name).toBe(true);
  });
});
