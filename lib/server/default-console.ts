import "server-only";
/**
 * The process-wide console, built from the environment on first use and kept on globalThis so that
 * Next.js hot reload (which re-evaluates modules) reuses its Redis connections and probe timer.
 * Tests install their own console with setDefaultConsole instead of editing process.env.
 */
import { parseConfig } from "./config";
import { createConsole, type ConsoleContext } from "./console";
import { logger } from "./logger";

const KEY = Symbol.for("redlock-console.default-console");
type Holder = { [KEY]?: ConsoleContext };

export function getConsole(): ConsoleContext {
  const holder = globalThis as Holder;
  if (!holder[KEY]) {
    const created = createConsole(parseConfig(process.env), { processMetrics: true });
    created.probe.start();
    logger.info(
      {
        nodes: created.registry.nodes.map((node) => node.address),
        readOnly: created.config.readOnly,
      },
      "console started",
    );
    holder[KEY] = created;
  }
  return holder[KEY];
}

/** Makes `instance` the console the route handlers use (undefined: back to the environment's). */
export function setDefaultConsole(instance: ConsoleContext | undefined): void {
  (globalThis as Holder)[KEY] = instance;
}
