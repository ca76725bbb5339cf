import { performance } from "node:perf_hooks";
import { NodeTimeoutError, NodeUnavailableError, RedlockError } from "./errors";
import type { RedlockNode } from "./node";
import type { Script, ScriptArg } from "./script";
import type { Client, ExecutionStats, NodeVote } from "./types";

/** A node's answer: the script's reply when it voted for, the reason when against. */
export type NodeAnswer =
  { vote: "for"; reply: unknown } | { vote: "against"; error: Error; reply?: unknown };

export interface AttemptRequest {
  readonly script: Script;
  readonly keys: readonly string[];
  readonly args: readonly ScriptArg[];
  /** Sent instead of script, keys and args to `nodes` (release: to the nodes that wake nobody). */
  readonly otherwise?: {
    readonly nodes: ReadonlySet<RedlockNode>;
    readonly script: Script;
    readonly keys: readonly string[];
    readonly args: readonly ScriptArg[];
  };
  /** Deadline for each node's answer, ms from the attempt's start. */
  readonly timeoutMs: number;
  /** Turns a script reply into a vote (e.g. "0 keys set" is a vote against). */
  readonly judge: (reply: unknown) => NodeAnswer;
  /** Decide as soon as the outcome is certain, instead of waiting for every node. */
  readonly decideEarly: boolean;
  /**
   * Decide once a majority of nodes has replied, whatever the replies (release: the outcome is
   * known then). A refusal, timeout or lost connection is no reply: the decision then waits for
   * every node that can still reply. Later answers still land in `answers` and `stats`.
   */
  readonly decideOnMajorityAnswered: boolean;
  /** Withhold the votes of nodes in restart quarantine (acquire only: extend and release cannot grant). */
  readonly gateRestarts: boolean;
}

export interface Attempt {
  /** Whether a majority voted for, decided as early as the votes allow. */
  readonly won: boolean;
  /** Time from the attempt's start to the decision, on the monotonic clock. */
  readonly elapsedMs: number;
  /** Each node's answer, undefined while it has not answered. */
  readonly answers: ReadonlyArray<NodeAnswer | undefined>;
  /** Each node's command as sent (undefined if nothing was sent), to chain clean-up after it. */
  readonly sent: ReadonlyArray<Promise<unknown> | undefined>;
  /** Resolves with every node's vote once all have answered or timed out. */
  readonly stats: Promise<ExecutionStats>;
}

export const quorumSize = (membershipSize: number) => Math.floor(membershipSize / 2) + 1;

/**
 * Sends one command to every node at once and counts votes. A node that errors, is unavailable or
 * misses the deadline votes against; nothing here ever waits on a node past `timeoutMs`.
 */
export function runAttempt(
  nodes: readonly RedlockNode[],
  request: AttemptRequest,
): Promise<Attempt> {
  return new Promise((resolveDecision) => new AttemptRun(nodes, request, resolveDecision).start());
}

/**
 * One attempt's bookkeeping, as one object with methods: the single-caller path runs it twice per
 * lock and unlock, so it allocates no per-attempt closures beyond each node's reply callbacks.
 */
class AttemptRun {
  private readonly startMono = performance.now();
  private readonly quorum: number;
  private readonly answers: Array<NodeAnswer | undefined>;
  private readonly latenciesMs: number[];
  private readonly sent: Array<Promise<unknown> | undefined>;
  private votesFor = 0;
  private votesAgainst = 0;
  private answered = 0;
  /** Answers that came from Redis itself (a reply or a Redis error), not from its absence. */
  private replied = 0;
  private decidedAtMs: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private resolveStats: (stats: ExecutionStats) => void = () => undefined;
  private readonly stats = new Promise<ExecutionStats>((resolve) => (this.resolveStats = resolve));

  constructor(
    private readonly nodes: readonly RedlockNode[],
    private readonly request: AttemptRequest,
    private readonly resolveDecision: (attempt: Attempt) => void,
  ) {
    this.quorum = quorumSize(nodes.length);
    this.answers = new Array<NodeAnswer | undefined>(nodes.length).fill(undefined);
    this.latenciesMs = new Array<number>(nodes.length).fill(0);
    this.sent = new Array<Promise<unknown> | undefined>(nodes.length).fill(undefined);
  }

  start(): void {
    this.timer = setTimeout(() => this.timeOut(), this.request.timeoutMs);
    for (let index = 0; index < this.nodes.length; index += 1)
      this.sent[index] = sendToNode(this.nodes[index]!, index, this.request, this);
  }

  record(index: number, answer: NodeAnswer): void {
    if (this.answers[index]) return;
    this.answers[index] = answer;
    this.latenciesMs[index] = performance.now() - this.startMono;
    if (answer.vote === "for") this.votesFor += 1;
    else this.votesAgainst += 1;
    this.answered += 1;
    if (answer.vote === "for" || answer.reply !== undefined || answer.error.name === "ReplyError")
      this.replied += 1;
    const { request, quorum } = this;
    if (request.decideEarly && this.votesFor >= quorum) this.decide(true);
    if (request.decideEarly && this.votesAgainst > this.nodes.length - quorum) this.decide(false);
    if (request.decideOnMajorityAnswered && this.replied >= quorum)
      this.decide(this.votesFor >= quorum);
    if (this.answered === this.nodes.length) {
      clearTimeout(this.timer);
      this.decide(this.votesFor >= quorum);
      this.resolveStats(this.buildStats());
    }
  }

  private decide(won: boolean): void {
    if (this.decidedAtMs !== undefined) return;
    this.decidedAtMs = performance.now() - this.startMono;
    const { answers, sent, stats } = this;
    this.resolveDecision({ won, elapsedMs: this.decidedAtMs, answers, sent, stats });
  }

  private timeOut(): void {
    this.nodes.forEach((node, index) => {
      if (this.answers[index]) return;
      const sent = this.sent[index];
      if (sent) node.markOverdue(sent);
      this.record(index, {
        vote: "against",
        error: new NodeTimeoutError(node.address, this.request.timeoutMs),
      });
    });
  }

  private buildStats(): ExecutionStats {
    const votesFor = new Set<Client>();
    const votesAgainst = new Map<Client, Error>();
    const votes: NodeVote[] = [];
    this.nodes.forEach((node, index) => {
      const answer = this.answers[index]!;
      const { address, client } = node;
      const latencyMs = this.latenciesMs[index]!;
      if (answer.vote === "for") {
        votesFor.add(client);
        votes.push({ index, address, vote: "for", latencyMs });
      } else {
        votesAgainst.set(client, answer.error);
        votes.push({ index, address, vote: "against", latencyMs, error: answer.error });
      }
    });
    return {
      membershipSize: this.nodes.length,
      quorumSize: this.quorum,
      votesFor,
      votesAgainst,
      nodes: votes,
      elapsedMs: this.decidedAtMs ?? 0,
    };
  }
}

/** Sends the attempt's command to one node; returns it as sent (undefined when the node refused at once). */
function sendToNode(
  node: RedlockNode,
  index: number,
  request: AttemptRequest,
  run: AttemptRun,
): Promise<unknown> | undefined {
  const refusal =
    node.unavailableReason() ??
    (request.gateRestarts ? node.restartWatch.quarantineError(node.address) : undefined);
  if (refusal) {
    run.record(index, { vote: "against", error: refusal });
    return undefined;
  }
  // ioredis re-sends unanswered commands after reconnecting, maybe to a restarted, empty process
  // that the gate never saw (autoResendUnfulfilledCommands): such an answer is no vote. Checked in
  // the reply handler below, so the gate adds no promise per command.
  const gated = request.gateRestarts && node.restartWatch.enabled;
  let generation = node.restartWatch.connectionGeneration;
  const { script, keys, args } = request.otherwise?.nodes.has(node) ? request.otherwise : request;
  // The restart check of a fresh connection is already in flight ahead of us: wait for its answer.
  const pending =
    request.gateRestarts && node.restartWatch.isUnknown
      ? node.restartWatch.ready().then(() => {
          const quarantined = node.restartWatch.quarantineError(node.address);
          if (quarantined) throw quarantined;
          if (node.restartWatch.isUnknown)
            throw new NodeUnavailableError(
              node.address,
              `Restart check of ${node.address} failed.`,
            );
          generation = node.restartWatch.connectionGeneration;
          return node.evaluate(script, keys, args);
        })
      : node.evaluate(script, keys, args);
  pending.then(
    (reply) =>
      run.record(
        index,
        gated && node.restartWatch.connectionGeneration !== generation
          ? {
              vote: "against",
              error: new NodeUnavailableError(
                node.address,
                `Node ${node.address} reconnected before answering; it may have restarted.`,
              ),
            }
          : request.judge(reply),
      ),
    (error: unknown) =>
      run.record(index, {
        vote: "against",
        error: error instanceof Error ? error : new RedlockError(String(error), { cause: error }),
      }),
  );
  return pending;
}
