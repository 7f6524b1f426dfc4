// A promise given a deadline: whatever waits on another party (an editor's terminal, an MCP
// server starting) is not held by one that stopped answering.

/** `work`, or a rejection with `message` after `ms`. */
export function bounded<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
