import { defineModule } from '../../module.js';
import { routinesPrivacy } from './privacy.js';
import { routineRoutes } from './routes.js';
import { createRoutineService, type RoutineService } from './service.js';
import type { RoutineTables } from './tables.js';
import { routineTools } from './tools.js';

declare module '../../module.js' {
  interface Services {
    routines: RoutineService;
  }
}

declare module '../../db/types.js' {
  interface Database extends RoutineTables {}
}

export const routinesModule = defineModule({
  name: 'routines',
  tables: ['routines', 'routineRuns'],
  service: (deps, { tasks }) => createRoutineService({ ...deps, tasks }),
  routes: [{ prefix: '/api/routines', plugin: routineRoutes }],
  tools: routineTools,
  privacy: routinesPrivacy,
  presentation: { order: 8 },
});
