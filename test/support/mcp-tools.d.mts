// Types of mcp-tools.mjs (plain JavaScript so the stdio server runs without tsx).
import type { McpServer } from "@modelcontextprotocol/server";

/** State that outlives one McpServer instance (the HTTP server's modern era builds one per request). */
export interface ToolServerShared {
  lateAdded: boolean;
}

export interface ToolServerOptions {
  /** register only these tools */
  only?: string[];
  /** false: every tool without annotations (default true) */
  annotations?: boolean;
  notesDir?: string;
  cancelLog?: string;
  /** what `crash` does: the stdio server exits with code 3, the HTTP one drops every connection */
  onCrash: () => void;
  /** called after add_tool, besides the list_changed this instance sends */
  onToolsChanged?: () => void;
  shared?: ToolServerShared;
}

export declare const RED_PIXEL_PNG: string;
export declare const BIG_MIN_BYTES: number;
/** what `big` answers for `bytes` */
export declare function bigText(bytes: number): string;
export declare function makeToolServer(options: ToolServerOptions): McpServer;
