import { defineModule } from '../../module.js';
import { userGroupsPrivacy } from './privacy.js';
import { userGroupRoutes } from './routes.js';
import { createUserGroupService, type UserGroupService } from './service.js';
import type { UserGroupTables } from './tables.js';
import { userGroupTools } from './tools.js';

declare module '../../module.js' {
  interface Services {
    userGroups: UserGroupService;
  }
}

declare module '../../db/types.js' {
  interface Database extends UserGroupTables {}
}

export const userGroupsModule = defineModule({
  name: 'userGroups',
  tables: ['userGroups', 'userGroupMembers', 'userGroupCalendars', 'userGroupInvites'],
  service: (deps, { calendars }) => createUserGroupService({ ...deps, calendars }),
  routes: [{ prefix: '/api/user-groups', plugin: userGroupRoutes }],
  tools: userGroupTools,
  privacy: userGroupsPrivacy,
  presentation: { order: 6 },
});
