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
  readonly decideOnMajorityAnswered?: boolean;
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
  const startMono = performance.now();
  const quorum = quorumSize(nodes.length);
  const answers: Array<NodeAnswer | undefined> = Array.from(
    { length: nodes.length },
    () => undefined,
  );
  const votes: Array<NodeVote | undefined> = Array.from({ length: nodes.length }, () => undefined);
  const sent: Array<Promise<unknown> | undefined> = Array.from(
    { length: nodes.length },
    () => undefined,
  );
  let votesFor = 0;
  let votesAgainst = 0;
  let answered = 0;
  /** Answers that came from Redis itself (a reply or a Redis error), not from its absence. */
  let replied = 0;

  return new Promise((resolveDecision) => {
    let decidedAtMs: number | undefined;
    let resolveStats: () => void = () => undefined;
    const allAnswered = new Promise<void>((resolve) => (resolveStats = resolve));
    const decide = (won: boolean) => {
      if (decidedAtMs !== undefined) return;
      decidedAtMs = performance.now() - startMono;
      resolveDecision({
        won,
        elapsedMs: decidedAtMs,
        answers,
        sent,
        stats: allAnswered.then(buildStats),
      });
    };
    const record = (index: number, answer: NodeAnswer) => {
      if (answers[index]) return;
      answers[index] = answer;
      const node = nodes[index]!;
      const latencyMs = performance.now() - startMono;
      votes[index] =
        answer.vote === "for"
          ? { index, address: node.address, vote: "for", latencyMs }
          : { index, address: node.address, vote: "against", latencyMs, error: answer.error };
      if (answer.vote === "for") votesFor += 1;
      else votesAgainst += 1;
      answered += 1;
      if (answer.vote === "for" || answer.reply !== undefined || answer.error.name === "ReplyError")
        replied += 1;
      if (request.decideEarly && votesFor >= quorum) decide(true);
      if (request.decideEarly && votesAgainst > nodes.length - quorum) decide(false);
      if (request.decideOnMajorityAnswered && replied >= quorum) decide(votesFor >= quorum);
      if (answered === nodes.length) {
        clearTimeout(timer);
        decide(votesFor >= quorum);
        resolveStats();
      }
    };
    const buildStats = (): ExecutionStats => {
      const stats = {
        membershipSize: nodes.length,
        quorumSize: quorum,
        votesFor: new Set<Client>(),
        votesAgainst: new Map<Client, Error>(),
      };
      for (const vote of votes) {
        if (!vote) continue;
        const client = nodes[vote.index]!.client;
        if (vote.vote === "for") stats.votesFor.add(client);
        else stats.votesAgainst.set(client, vote.error!);
      }
      return { ...stats, nodes: votes as NodeVote[], elapsedMs: decidedAtMs ?? 0 };
    };
    const timer = setTimeout(() => {
      nodes.forEach((node, index) => {
        if (answers[index]) return;
        if (sent[index]) node.markOverdue(sent[index]);
        record(index, {
          vote: "against",
          error: new NodeTimeoutError(node.address, request.timeoutMs),
        });
      });
    }, request.timeoutMs);

    nodes.forEach((node, index) => sendToNode(node, index, request, sent, record));
  });
}

function sendToNode(
  node: RedlockNode,
  index: number,
  request: AttemptRequest,
  sent: Array<Promise<unknown> | undefined>,
  record: (index: number, answer: NodeAnswer) => void,
): void {
  const refusal =
    node.unavailableReason() ??
    (request.gateRestarts ? node.restartWatch.quarantineError(node.address) : undefined);
  if (refusal) return record(index, { vote: "against", error: refusal });
  const evaluate = () => {
    // Without quarantine there is no gate to bypass: skip the extra promise per command.
    if (!request.gateRestarts || !node.restartWatch.enabled)
      return node.evaluate(request.script, request.keys, request.args);
    // ioredis re-sends unanswered commands after reconnecting, maybe to a restarted, empty process
    // that the gate never saw (autoResendUnfulfilledCommands): such an answer is no vote.
    const generation = node.restartWatch.connectionGeneration;
    return node.evaluate(request.script, request.keys, request.args).then((reply) => {
      if (request.gateRestarts && node.restartWatch.connectionGeneration !== generation) {
        throw new NodeUnavailableError(
          node.address,
          `Node ${node.address} reconnected before answering; it may have restarted.`,
        );
      }
      return reply;
    });
  };
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
          return evaluate();
        })
      : evaluate();
  sent[index] = pending;
  pending.then(
    (reply) => record(index, request.judge(reply)),
    (error: unknown) =>
      record(index, {
        vote: "against",
        error: error instanceof Error ? error : new RedlockError(String(error), { cause: error }),
      }),
  );
}
