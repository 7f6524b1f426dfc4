// The id of a JSON-RPC message read from the start of its text only: an oversize message is
// answered with an error that carries its id when the id comes early (clients write
// {"jsonrpc","id","method",...} with the big params last), so the caller's request fails at once
// instead of waiting for ever. Only top-level keys count (an "id" inside params is not it); a
// number or a string id is taken, anything else, or a head cut before the id, gives none.
//
// Pure and bounded: a small scanner over a few KiB, no JSON.parse of a truncated text.

export interface HeadInfo {
  /** the top-level "id", when it was read whole */
  id?: string | number;
  /** a top-level "result" or "error" key was seen: a response (never answered) */
  response: boolean;
}

const WS = new Set([" ", "\t", "\n", "\r"]);

export function headInfo(head: string): HeadInfo {
  const info: HeadInfo = { response: false };
  let i = 0;
  const skipWs = () => {
    while (i < head.length && WS.has(head[i])) i++;
  };
  /** a JSON string starting at i (a quote); its value, or undefined when the head ends inside it */
  const readString = (): string | undefined => {
    let j = i + 1;
    let out = "";
    while (j < head.length) {
      const c = head[j];
      if (c === '"') {
        i = j + 1;
        return out;
      }
      if (c === "\\") {
        const esc = head.slice(j, j + 6);
        if (esc.length < 2) return undefined;
        try {
          const s = JSON.parse(`"${esc[1] === "u" ? esc : esc.slice(0, 2)}"`) as string;
          out += s;
        } catch {
          return undefined;
        }
        j += esc[1] === "u" ? 6 : 2;
        continue;
      }
      out += c;
      j++;
    }
    return undefined;
  };
  /** skips a value of any kind; false when the head ends inside it */
  const skipValue = (): boolean => {
    let depth = 0;
    while (i < head.length) {
      const c = head[i];
      if (c === '"') {
        if (readString() === undefined) return false;
      } else if (c === "{" || c === "[") {
        depth++;
        i++;
      } else if (c === "}" || c === "]") {
        if (depth === 0) return true; // the end of the enclosing object
        depth--;
        i++;
      } else if (c === "," && depth === 0) return true;
      else i++;
      if (depth === 0 && (c === '"' || c === "}" || c === "]")) return true;
    }
    return false;
  };

  skipWs();
  if (head[i] !== "{") return info;
  i++;
  for (;;) {
    skipWs();
    if (head[i] !== '"') return info;
    const key = readString();
    if (key === undefined) return info;
    skipWs();
    if (head[i] !== ":") return info;
    i++;
    skipWs();
    if (key === "result" || key === "error") info.response = true;
    if (key === "id") {
      const start = i;
      if (head[i] === '"') {
        const s = readString();
        if (s !== undefined) info.id = s;
      } else {
        const m = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(head.slice(i, i + 40));
        // a number cut by the end of the head is not taken (it might go on)
        if (m && i + m[0].length < head.length) {
          info.id = Number(m[0]);
          i += m[0].length;
        }
      }
      if (i === start && !skipValue()) return info;
    } else if (!skipValue()) return info;
    skipWs();
    if (head[i] !== ",") return info;
    i++;
  }
}
