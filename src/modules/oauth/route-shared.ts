/** The OpenAPI tags of every OAuth endpoint. */
export const tags = ['oauth'];

/** Credentials and authorization responses are never cached (RFC 6749 §5.1, RFC 7591 §3.2.1). */
export const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };
