import { defineModule } from '../../module.js';
import { createTimeService, type TimeService } from './service.js';
import { timeTools } from './tools.js';

declare module '../../module.js' {
  interface Services {
    time: TimeService;
  }
}

/** `time_now` and `time_convert`: tools only, no tables, no routes. */
export const timeModule = defineModule({
  name: 'time',
  tables: [],
  service: (_deps, services) => createTimeService({ organisations: () => services.organisations }),
  tools: timeTools,
});
