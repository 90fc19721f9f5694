// The picker's side of the MCP Apps bridge (the ext-apps SDK's App over postMessage to the
// host page that framed it): the tool's arguments and answer come in, the host's zone and
// language too; bookings go out as tool calls the host relays to the service.
import { App, type McpUiHostContext, PostMessageTransport } from '@modelcontextprotocol/ext-apps';

/** What the host has told the picker so far. */
export interface HostState {
  /** The availability tool's arguments. */
  input: Record<string, unknown>;
  /** Its structured answer; undefined until it arrives. */
  answer?: unknown;
  /** Why the tool gave no answer: the service's refusal in its words, or what the picker says. */
  failure?: { message: string } | { words: 'callFailed' | 'callCancelled' | 'noHost' };
  timeZone?: string;
  locale?: string;
}

/** JSON-RPC's "method not found". */
const METHOD_NOT_FOUND = -32601;

const contextOf = (context: McpUiHostContext | undefined): Partial<HostState> => ({
  ...(context?.timeZone ? { timeZone: context.timeZone } : {}),
  ...(context?.locale ? { locale: context.locale } : {}),
});

const failureOf = (content: unknown): HostState['failure'] => {
  const message = (content as { error?: { message?: unknown } } | undefined)?.error?.message;
  return typeof message === 'string' ? { message } : { words: 'callFailed' };
};

/**
 * Connects to the host; `update` hears each change. A message of a method the picker does not
 * know is ignored (a request answered "method not found") and logged.
 */
export function connectToHost(update: (change: Partial<HostState>) => void): App {
  const app = new App({ name: 'slot-picker', version: '1.0.0' }, {}, { autoResize: true });
  app.ontoolinput = ({ arguments: input }) => update({ input: input ?? {} });
  app.ontoolresult = (result) =>
    update(
      result.isError
        ? { failure: failureOf(result.structuredContent) }
        : { answer: result.structuredContent, failure: undefined },
    );
  app.ontoolcancelled = () => update({ failure: { words: 'callCancelled' } });
  app.onhostcontextchanged = (context) => update(contextOf(context));
  app.fallbackNotificationHandler = async ({ method }) => {
    console.warn(`slot picker: ignored a message of an unknown method: ${method}`);
  };
  app.fallbackRequestHandler = async ({ method }) => {
    console.warn(`slot picker: ignored a request of an unknown method: ${method}`);
    throw Object.assign(new Error('Method not found'), { code: METHOD_NOT_FOUND });
  };
  app
    .connect(new PostMessageTransport(window.parent, window.parent))
    .then(() => update(contextOf(app.getHostContext())))
    .catch((error: unknown) => {
      console.warn(`slot picker: no host to talk to: ${String(error)}`);
      update({ failure: { words: 'noHost' } });
    });
  return app;
}
