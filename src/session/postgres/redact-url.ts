// A PostgreSQL URL fit for logs and messages: its password hidden.

/** The URL with its password hidden, for messages; a value that is no URL as it is. */
export function redactUrl(value: string): string {
  if (value === "") return '""';
  try {
    const url = new URL(value);
    if (!url.password) return value;
    url.password = "***";
    return url.href;
  } catch {
    // not a WHATWG URL (a libpq URI without a host): hide what sits between "user:" and "@"
    return value.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:@/]*:)[^@/]*@/i, "$1***@");
  }
}
