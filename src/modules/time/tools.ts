import { defineTool } from '../../mcp/types.js';
import { timeConvertInput, timeConvertOutput, timeNowInput, timeNowOutput } from './schemas.js';
import type { TimeService } from './service.js';

/** The clock and zone tools, always available: call them before booking, never guess a date or offset. */
export const timeTools = [
  defineTool({
    actionKey: 'time.now',
    title: 'Current time',
    description:
      "Now, as a UTC instant and as wall time with its offset and weekday in your organisation's time zone (or timeZone). Call it before working out 'tomorrow' or 'next Tuesday'.",
    catalogue: {
      description: 'The current time in the organisation’s zone. Always available; reads nothing of yours.',
      risk: 'read',
      scopeKinds: [],
      alwaysAllowed: true,
    },
    input: timeNowInput,
    output: timeNowOutput,
    run: (time: TimeService, actor, input) => time.now(actor, input),
  }),
  defineTool({
    actionKey: 'time.convert',
    title: 'Convert time',
    description:
      "Converts a time between zones, DST-correct: an instant with offset, or a wall time (2026-03-03T10:00) read in fromTimeZone (default your organisation's zone). Answers the UTC instant to send as startTime/endTime and the wall time with offset in both zones. A wall time the clocks skip is refused; one they repeat takes the earlier (see note).",
    catalogue: {
      description:
        'Converts times between zones (daylight saving time included). Always available; reads nothing of yours.',
      risk: 'read',
      scopeKinds: [],
      alwaysAllowed: true,
    },
    input: timeConvertInput,
    output: timeConvertOutput,
    run: (time: TimeService, actor, input) => time.convert(actor, input),
  }),
];
