import { defineModule } from '../../module.js';
import { tasksPrivacy } from './privacy.js';
import { taskLabelRoutes, taskRoutes } from './routes.js';
import { createTaskService, type TaskService } from './service.js';
import type { TaskTables } from './tables.js';
import { taskTools } from './tools.js';

declare module '../../module.js' {
  interface Services {
    tasks: TaskService;
  }
}

declare module '../../db/types.js' {
  interface Database extends TaskTables {}
}

export const tasksModule = defineModule({
  name: 'tasks',
  tables: ['tasks', 'taskLabels', 'taskLabelLinks', 'taskChecklistItems', 'taskDependencies'],
  service: (deps, services) =>
    createTaskService({
      ...deps,
      users: services.auth,
      // Automation listens to task completion (after the write commits), so tasks never depend on it.
      onTaskCompleted: async (actor, task) => services.automation.onTaskCompleted(actor, task),
    }),
  routes: [
    { prefix: '/api/tasks', plugin: taskRoutes },
    { prefix: '/api/task-labels', plugin: taskLabelRoutes },
  ],
  tools: taskTools,
  privacy: tasksPrivacy,
  presentation: { order: 7 },
});
