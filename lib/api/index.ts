/** The HTTP API's shapes: zod schemas and their inferred types, shared by route handlers and the UI. */
export * from "./error-codes";
export * from "./common";
export * from "./nodes";
export * from "./node-index";
export * from "./keyspace-events";
export * from "./holder-session";
export * from "./locks";
export * from "./lock-detail";
export * from "./actions";
export * from "./latency";
export * from "./audit";
export * from "./session";
export * from "./holder-sessions";
export * from "./resource-key";
export * from "./timeline";
export * from "./contention";
