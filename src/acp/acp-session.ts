// One pith session as an ACP client sees it on this connection: the session's events become
// session/update notifications, a prompt answers when its run ends (with ACP's stop reason), a
// cancel answers the pending prompt at once and silences the rest of that run, and the session's
// permission questions (the host's, pending-questions.ts) go to the client as
// session/request_permission. The live session itself is the host's; this object only forwards,
// so closing the connection never loses what was stored, nor answers what the session waits for.
import type * as acp from "@agentclientprotocol/sdk";
import type { RunError } from "../../protocol/index.js";
import type { LiveSession } from "../host/live/live-session.js";
import type { SessionHost } from "../host/session-host.js";
import type { ImageContent } from "../messages/types.js";
import type { PermissionOutcome, PermissionRequest, QuestionClient, SessionListener } from "../host/ports.js";
import type { SessionEvent } from "../host/live/event-buffer.js";
import { createLiveContext, updatesForEvent, type LiveContext } from "./live-updates.js";
import { mcpServerUpdates, mcpSkippedUpdate, type McpFailuresTold } from "./mcp-notices.js";
import { mcpToolRef, type McpToolRef } from "./mcp-tool-calls.js";
import { toolCallStart, toolStatusUpdate } from "./tool-calls.js";

export interface AcpSessionOptions {
  session: LiveSession;
  /** the host's operation layer: a prompt is performed there, as every front's is */
  host: Pick<SessionHost, "perform">;
  /** sends one session/update (in order; failures are the connection's to report) */
  send(update: acp.SessionUpdate): void;
  /** asks the client; cancelled ($/cancel_request) when the signal aborts */
  requestPermission(params: acp.RequestPermissionRequest, signal: AbortSignal): Promise<acp.RequestPermissionResponse>;
  /** the client shows compaction_update / compaction_summary_chunk */
  compaction: boolean;
  /** the client shows notice updates */
  notices: boolean;
}


/** How a pith run ended, as ACP says it. */
export type RunEnd = { stopReason: acp.StopReason } | { error: RunError };

interface PendingRun {
  /** set at agent_start: the run this prompt started */
  runId?: string;
  resolve(end: RunEnd): void;
}

const STOP: Record<string, acp.StopReason> = { stop: "end_turn", length: "max_tokens", max_turns: "max_turn_requests", aborted: "cancelled" };

const PERMISSION_OPTIONS: acp.PermissionOption[] = [
  { optionId: "allow_once", name: "Allow", kind: "allow_once" },
  { optionId: "allow_always", name: "Always allow", kind: "allow_always" },
  { optionId: "reject_once", name: "Reject", kind: "reject_once" },
];

export class AcpSession {
  readonly live: LiveSession;
  private readonly listener: SessionListener;
  private pending: PendingRun | null = null;
  /** a cancelled run: its remaining events are not sent (the prompt already answered) */
  private muted: string | "next" | null = null;
  /** the mapping's memory for this session (a call's arguments, the message streaming) */
  private readonly mapping: LiveContext;
  /** tools the user allowed for the rest of the session: no question, so no pending state */
  private readonly allowedAlways = new Set<string>();
  /** the MCP server failures this client was told of; none is told before the session's response went out (announceMcp) */
  private readonly mcpTold: McpFailuresTold = new Map();
  private mcpAnnounced = false;

  constructor(private readonly opts: AcpSessionOptions) {
    this.live = opts.session;
    this.mapping = createLiveContext({
      cwd: this.live.file.cwd,
      compaction: opts.compaction,
      notices: opts.notices,
      awaitsPermission: (name) => this.live.asksFirst(name) && !this.allowedAlways.has(name),
      mcpTool: (name) => this.mcpTool(name),
    });
    this.listener = (event) => this.onEvent(event);
    this.live.subscribe(this.listener);
  }

  /** This client as the host asks it the session's questions: permissions (ACP has no compaction hook). */
  readonly questions: QuestionClient = {
    answers: (method) => method === "requestPermission",
    ask: (_method, params, withdrawn) => this.askPermission(params as PermissionRequest, withdrawn),
  };

  get id(): string {
    return this.live.id;
  }

  private mcpTool(name: string): McpToolRef | undefined {
    return mcpToolRef(name, this.live.mcpServers());
  }

  /**
   * After the response to session/new, load or resume (updates sent before it are dropped by
   * Zed): the entries of the editor's list left out, and the servers that failed so far; later
   * failures are told as their mcp_server events come.
   */
  announceMcp(skipped: readonly string[]): void {
    this.mcpAnnounced = true;
    skipped.forEach((message, i) => this.sendUpdate(mcpSkippedUpdate(message, this.opts, `${this.live.id}:${i}`)));
    for (const server of this.live.mcpServers()) for (const u of mcpServerUpdates(server, this.mcpTold, this.opts, `${server.name}:now`)) this.sendUpdate(u);
  }

  private onEvent(e: SessionEvent): void {
    // a server's state is the session's, not a run's: told even while a cancelled run is muted
    if (e.type === "mcp_server") {
      if (this.mcpAnnounced) for (const u of mcpServerUpdates(e.server, this.mcpTold, this.opts, `${e.server.name}:${e.seq}`)) this.sendUpdate(u);
      return;
    }
    if (e.type === "agent_start" && this.pending && this.pending.runId === undefined) this.pending.runId = e.runId;
    if (e.type === "agent_start" && this.muted === "next") this.muted = e.runId;
    const muted = this.muted !== null;
    if (e.type === "agent_end") {
      if (this.muted === e.runId) this.muted = null;
      if (this.pending && this.pending.runId === e.runId) {
        const pending = this.pending;
        this.pending = null;
        pending.resolve(e.stopReason === "error" ? { error: e.error ?? { message: "the run failed" } } : { stopReason: STOP[e.stopReason] ?? "end_turn" });
      }
    }
    if (muted) return;
    for (const update of updatesForEvent(e, this.mapping)) this.sendUpdate(update);
    // ACP clients show the context after every model call; pith reports it once per run
    if (e.type === "turn_end") {
      const { contextTokens, contextWindow } = this.live.usage();
      this.sendUpdate({ sessionUpdate: "usage_update", used: Math.round(contextTokens), size: contextWindow });
    }
  }

  private lastUsage = "";
  private sendUpdate(update: acp.SessionUpdate): void {
    if (update.sessionUpdate === "usage_update") {
      const key = `${update.used}/${update.size}`;
      if (key === this.lastUsage) return;
      this.lastUsage = key;
    }
    this.opts.send(update);
  }

  /** Starts a run with this prompt and resolves when it ends (or is cancelled). */
  async run(prompt: { text: string; images: ImageContent[] }): Promise<RunEnd> {
    const ended = new Promise<RunEnd>((resolve) => (this.pending = { resolve }));
    try {
      // the session's exclusive slot, as for a JSON-RPC prompt: a run or a compaction in progress refuses it
      const input = { text: prompt.text, ...(prompt.images.length > 0 ? { images: prompt.images } : {}) };
      await this.opts.host.perform("prompt", { sessionId: this.live.id, text: prompt.text }, (held) => this.live.prompt(held, input));
    } catch (err) {
      this.pending = null;
      throw err;
    }
    return ended;
  }

  /** session/cancel: the pending prompt answers "cancelled" now; nothing of that run is sent after. */
  cancelRun(): void {
    const pending = this.pending;
    if (pending) {
      this.pending = null;
      // the run's agent_start may not have come yet: then silence the next run to start
      this.muted = pending.runId ?? "next";
      pending.resolve({ stopReason: "cancelled" });
    }
    this.live.abort();
  }

  /**
   * Asks the client. Its `cancelled` outcome (the user dismissed the question; agent-shell sends
   * it, then session/cancel) cancels the turn: the run stops as an abort, the prompt answers
   * "cancelled", the model is not called again. A session/cancel while the question waits aborts
   * the run, which withdraws the question (`withdrawn`: the request is cancelled). A client that
   * fails rejects: the host then waits for another, or takes the safe answer.
   */
  private async askPermission(request: PermissionRequest, withdrawn: AbortSignal): Promise<{ outcome: PermissionOutcome }> {
    const { sessionUpdate: _tag, ...toolCall } = toolCallStart(request.toolCallId, request.toolName, request.args, this.live.file.cwd, "pending", this.mcpTool(request.toolName));
    const answer = await this.opts.requestPermission({ sessionId: this.id, toolCall, options: PERMISSION_OPTIONS }, withdrawn);
    if (answer.outcome.outcome === "cancelled") return { outcome: "cancel" };
    const id = answer.outcome.optionId;
    const outcome: PermissionOutcome = id === "allow_always" ? "allowAlways" : id === "allow_once" ? "allow" : "deny";
    // an answer to a question settled meanwhile counts for nothing: no status to move
    if (withdrawn.aborted) return { outcome };
    if (outcome === "allowAlways") this.allowedAlways.add(request.toolName);
    // allowed: the call leaves "pending" (a denied one ends failed with its result)
    if (outcome !== "deny") this.opts.send(toolStatusUpdate(request.toolCallId, "in_progress"));
    return { outcome };
  }

  /** This connection stops following the session (the session itself stays the host's, its run and its questions too). */
  detach(): void {
    this.live.unsubscribe(this.listener);
  }
}
