/**
 * The shipped replica deployments, checked without a cluster: deploy/kubernetes/ (a Deployment of
 * two replicas, its Service, probes on /api/health, a PodDisruptionBudget, the settings as a
 * ConfigMap and a Secret) against schemas of the Kubernetes fields they use and against each other
 * (selectors, names, ports); docker-compose.yml's two replicas behind its load balancer. The
 * settings of both pass the console's own configuration parser.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { parseConfig } from "@/lib/server/config";

/** js-yaml: in the lock file (eslint brings it); only this test reads YAML. */
const yaml = createRequire(import.meta.url)("js-yaml") as { loadAll(text: string): unknown[] };

const DIR = "deploy/kubernetes";
const STRONG_TOKEN = randomBytes(32).toString("hex");
const load = (file: string): unknown[] => yaml.loadAll(readFileSync(file, "utf8"));

const labels = z.record(z.string(), z.string());
const metadata = z.object({ name: z.string().regex(/^[a-z0-9-]+$/), labels: labels.optional() });
const probe = z.object({
  httpGet: z.object({ path: z.literal("/api/health"), port: z.union([z.string(), z.number()]) }),
  periodSeconds: z.number().int().positive(),
  timeoutSeconds: z.number().int().positive(),
  failureThreshold: z.number().int().positive(),
});
const container = z.object({
  name: z.string(),
  image: z.string(),
  ports: z.array(z.object({ name: z.string(), containerPort: z.number().int() })),
  envFrom: z.array(
    z.union([
      z.object({ configMapRef: z.object({ name: z.string() }) }),
      z.object({ secretRef: z.object({ name: z.string() }) }),
    ]),
  ),
  env: z.array(
    z.object({
      name: z.string(),
      valueFrom: z.object({ fieldRef: z.object({ fieldPath: z.string() }) }),
    }),
  ),
  readinessProbe: probe,
  livenessProbe: probe,
});
const deployment = z.object({
  apiVersion: z.literal("apps/v1"),
  kind: z.literal("Deployment"),
  metadata,
  spec: z.object({
    replicas: z.number().int().min(2),
    selector: z.object({ matchLabels: labels }),
    template: z.object({
      metadata: z.object({ labels }),
      spec: z.object({ containers: z.array(container).length(1) }),
    }),
  }),
});
const service = z.object({
  apiVersion: z.literal("v1"),
  kind: z.literal("Service"),
  metadata,
  spec: z.object({
    selector: labels,
    ports: z.array(z.object({ name: z.string(), port: z.number(), targetPort: z.string() })),
    /** No sticky sessions: any replica serves any request and any stream. */
    sessionAffinity: z.literal("None").optional(),
  }),
});
const budget = z.object({
  apiVersion: z.literal("policy/v1"),
  kind: z.literal("PodDisruptionBudget"),
  metadata,
  spec: z.object({
    minAvailable: z.number().int().min(1),
    selector: z.object({ matchLabels: labels }),
  }),
});
const configMap = z.object({
  apiVersion: z.literal("v1"),
  kind: z.literal("ConfigMap"),
  metadata,
  data: z.record(z.string(), z.string()),
});
const secret = z.object({
  apiVersion: z.literal("v1"),
  kind: z.literal("Secret"),
  metadata,
  type: z.literal("Opaque"),
  stringData: z.record(z.string(), z.string()),
});
const kustomization = z.object({
  kind: z.literal("Kustomization"),
  resources: z.array(z.string()),
});

const matches = (selector: Record<string, string>, podLabels: Record<string, string>) =>
  Object.entries(selector).every(([key, value]) => podLabels[key] === value);

describe("deploy/kubernetes", () => {
  const resources = kustomization.parse(load(`${DIR}/kustomization.yaml`)[0]).resources;
  const documents = resources.flatMap((file) => load(`${DIR}/${file}`));
  const one = <T>(schema: z.ZodType<T>, kind: string): T =>
    schema.parse(documents.find((doc) => (doc as { kind?: string }).kind === kind));

  it("lists every manifest of the folder, each a kind the schemas know", () => {
    const files = ["configmap.yaml", "secret.yaml", "deployment.yaml", "service.yaml"];
    expect(resources).toEqual(expect.arrayContaining([...files, "pod-disruption-budget.yaml"]));
    expect(documents.map((doc) => (doc as { kind: string }).kind).sort()).toEqual([
      "ConfigMap",
      "Deployment",
      "PodDisruptionBudget",
      "Secret",
      "Service",
    ]);
  });

  it("two replicas with probes on /api/health; the Service and the budget select them; settings by name", () => {
    const app = one(deployment, "Deployment");
    const pod = app.spec.template;
    expect(matches(app.spec.selector.matchLabels, pod.metadata.labels)).toBe(true);
    const [console] = pod.spec.containers;
    const portNames = console!.ports.map((port) => port.name);
    expect(portNames).toContain(console!.readinessProbe.httpGet.port);
    expect(portNames).toContain(console!.livenessProbe.httpGet.port);
    const svc = one(service, "Service");
    expect(matches(svc.spec.selector, pod.metadata.labels)).toBe(true);
    for (const port of svc.spec.ports) expect(portNames).toContain(port.targetPort);
    const pdb = one(budget, "PodDisruptionBudget");
    expect(matches(pdb.spec.selector.matchLabels, pod.metadata.labels)).toBe(true);
    expect(pdb.spec.minAvailable).toBeLessThan(app.spec.replicas);
    const refs = console!.envFrom.map((ref) =>
      "configMapRef" in ref ? `ConfigMap/${ref.configMapRef.name}` : `Secret/${ref.secretRef.name}`,
    );
    expect(refs.sort()).toEqual([
      `ConfigMap/${one(configMap, "ConfigMap").metadata.name}`,
      `Secret/${one(secret, "Secret").metadata.name}`,
    ]);
    expect(console!.env).toContainEqual({
      name: "CONSOLE_REPLICA_ID",
      valueFrom: { fieldRef: { fieldPath: "metadata.name" } },
    });
  });

  it("the settings pass the console's parser once the Secret's placeholder is replaced (not before)", () => {
    const env = { ...one(configMap, "ConfigMap").data, ...one(secret, "Secret").stringData };
    expect(() => parseConfig(env)).toThrow(/CONSOLE_ADMIN_TOKEN/);
    const config = parseConfig({ ...env, CONSOLE_ADMIN_TOKEN: STRONG_TOKEN });
    expect(config.stateUrl).toBeDefined();
    expect(config.nodeUrls.length).toBeGreaterThanOrEqual(3);
  });
});

describe("docker-compose.yml", () => {
  const compose = z
    .object({ services: z.record(z.string(), z.record(z.string(), z.unknown())) })
    .parse(load("docker-compose.yml")[0]);
  const envOf = (name: string) =>
    z.record(z.string(), z.string()).parse(compose.services[name]!.environment);

  it("two console replicas on one state store, different ids, both behind the load balancer", () => {
    const [first, second] = [envOf("console"), envOf("console2")];
    expect(first.CONSOLE_STATE_URL).toBe(second.CONSOLE_STATE_URL);
    expect(first.CONSOLE_REPLICA_ID).not.toBe(second.CONSOLE_REPLICA_ID);
    for (const env of [first, second]) {
      const config = parseConfig({ ...env, CONSOLE_ADMIN_TOKEN: STRONG_TOKEN });
      expect(new URL(config.stateUrl!).hostname).toBe("console-state");
    }
    expect(compose.services["load-balancer"]!.depends_on).toEqual(["console", "console2"]);
    const nginx = readFileSync("deploy/compose/nginx.conf", "utf8").replace(/#.*$/gm, "");
    expect(nginx).toMatch(/server console:3000/);
    expect(nginx).toMatch(/server console2:3000/);
    expect(nginx).not.toMatch(/ip_hash|sticky/);
  });
});
